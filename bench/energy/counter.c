/* counter.c: how often the board's energy counter (NVML's nvmlDeviceGetTotalEnergyConsumption)
 * moves, and by how much, polled as fast as the host can for SECONDS (default 3) on GPU 0: the
 * resolution the energy window of docs/energy.md works with. Run it while the GPU is busy (for
 * example under a PyTorch loop) and while it is idle. Prints the polls, the changes, the
 * intervals between changes (min, median, max, ms) and the power they imply.
 *     cc -O2 bench/energy/counter.c -ldl -o counter && ./counter 3 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    double seconds = argc > 1 ? atof(argv[1]) : 3;
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!h) {
        printf("counter: no NVML\n");
        return 1;
    }
    int (*init)(void) = (int (*)(void))dlsym(h, "nvmlInit_v2");
    int (*by_index)(unsigned, void **) = (int (*)(unsigned, void **))dlsym(h, "nvmlDeviceGetHandleByIndex_v2");
    int (*energy)(void *, unsigned long long *) =
        (int (*)(void *, unsigned long long *))dlsym(h, "nvmlDeviceGetTotalEnergyConsumption");
    void *dev;
    if (!init || !by_index || !energy || init() || by_index(0, &dev)) {
        printf("counter: NVML calls missing or failing\n");
        return 1;
    }
    unsigned long long e0, e, prev;
    energy(dev, &e0);
    prev = e0;
    double t0 = now_ms(), last = -1, first_t = -1;
    unsigned long long first_e = 0;
    long polls = 0, n = 0;
    double *gaps = malloc(100000 * sizeof *gaps), *steps = malloc(100000 * sizeof *steps);
    while (now_ms() - t0 < seconds * 1e3) {
        if (energy(dev, &e))
            break;
        polls++;
        if (e != prev) {
            double t = now_ms();
            if (last >= 0 && n < 100000) {
                gaps[n] = t - last;
                steps[n] = (double)(e - prev);
                n++;
            } else if (last < 0) {
                first_t = t;
                first_e = e;
            }
            last = t;
            prev = e;
        }
    }
    double span = now_ms() - t0;
    printf("counter: %ld polls in %.0f ms (%.1f us a poll), %ld changes\n", polls, span,
           1e3 * span / (double)polls, n + (last >= 0));
    if (n > 0) {
        qsort(gaps, (size_t)n, sizeof *gaps, cmp);
        qsort(steps, (size_t)n, sizeof *steps, cmp);
        printf("counter: interval between changes: min %.2f, median %.2f, max %.2f ms; step "
               "median %.0f mJ; power over the changes %.1f W\n", gaps[0], gaps[n / 2],
               gaps[n - 1], steps[n / 2], (double)(prev - first_e) / (last - first_t));
    }
    return 0;
}
