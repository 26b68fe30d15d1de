/* check.h: the unit tests' tiny harness. CHECK counts a passed or failed assertion (printing the
 * failed ones with file and line); CHECK_DONE prints "N passed, N failed" for tests/run.sh to add
 * up and returns the exit status. One file per module under test: tests/unit/test_<module>.c. */
#pragma once
#include <stdio.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(cond) do { \
    if (cond) check_passed++; \
    else { check_failed++; fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } \
} while (0)
#define CHECK_STR(a, b) do { const char *ca_ = (a), *cb_ = (b); \
    if (ca_ && cb_ && strcmp(ca_, cb_) == 0) check_passed++; \
    else { check_failed++; fprintf(stderr, "%s:%d: CHECK failed: \"%s\" == \"%s\"\n", __FILE__, __LINE__, \
                                   ca_ ? ca_ : "(null)", cb_ ? cb_ : "(null)"); } \
} while (0)
#define CHECK_DONE() (printf("%d passed, %d failed\n", check_passed, check_failed), check_failed ? 1 : 0)

/* Time limits of the speed checks: as written, or 20 times longer in the sanitizer build
 * (make SANITIZE=1: ASan and UBSan slow such loops by several times, more on a busy machine). */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZER_SLOWDOWN 20.0
#else
#define SANITIZER_SLOWDOWN 1.0
#endif
