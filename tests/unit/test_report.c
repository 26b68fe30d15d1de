/* test_report.c: unit tests of the report's pure parts: device slugs, size labels, heading
 * anchors, the classic default written like a space's config (report_compare.c), the Markdown +
 * HTML twin writer (escaping, inline markup, tables, images), and the analysis (importance
 * spreads, slices, the most important parameter, group ranking, histograms, the Pareto front of
 * time and energy) over a hand-made problem. The whole command is tested over the synthetic fixture by tests/cli/report.sh. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "ops/ops.h"
#include "report/report_compare.h"
#include "report/report_data.h"
#include "report/report_doc.h"

static void test_labels(void)
{
    char b[256];
    rp_slug("NVIDIA H100 80GB HBM3", b, sizeof b);           CHECK_STR(b, "nvidia-h100-80gb-hbm3");
    rp_slug("Synthetic GPU (test fixture, not a measurement)", b, sizeof b);
    CHECK_STR(b, "synthetic-gpu-test-fixture-not-a-measurement");
    rp_slug("--A--b--", b, sizeof b);                        CHECK_STR(b, "a-b");
    rp_slug("", b, sizeof b);                                CHECK_STR(b, "device");
    rp_slug("\xc3\xa9t\xc3\xa9", b, sizeof b);               CHECK_STR(b, "t");

    rp_size_label(65536, b, sizeof b);        CHECK_STR(b, "64 Ki");
    rp_size_label(1048576, b, sizeof b);      CHECK_STR(b, "1 Mi");
    rp_size_label(33554431, b, sizeof b);     CHECK_STR(b, "32 Mi - 1");
    rp_size_label(4194305, b, sizeof b);      CHECK_STR(b, "4 Mi + 1");
    rp_size_label(268435456, b, sizeof b);    CHECK_STR(b, "256 Mi");
    rp_size_label(3LL << 30, b, sizeof b);    CHECK_STR(b, "3 Gi");
    rp_size_label(1023, b, sizeof b);         CHECK_STR(b, "1 Ki - 1");
    rp_size_label(1536, b, sizeof b);         CHECK_STR(b, "1536");   /* 1.5 Ki is not exact */
    rp_size_label(1000, b, sizeof b);         CHECK_STR(b, "1000");
    rp_size_label(1, b, sizeof b);            CHECK_STR(b, "1");

    twin_anchor("elementwise.mul f16", b, sizeof b);   CHECK_STR(b, "elementwisemul-f16");
    twin_anchor("Strategy convergence", b, sizeof b);  CHECK_STR(b, "strategy-convergence");
    twin_anchor("How to read: a_b (x)", b, sizeof b);  CHECK_STR(b, "how-to-read-a_b-x");
}

/* The value of key in a "k=v,..." text, or "". */
static const char *value_of(const char *config, const char *key, char *buf, size_t len)
{
    size_t kl = strlen(key);
    buf[0] = 0;
    for (const char *p = config; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t item = comma ? (size_t)(comma - p) : strlen(p);
        if (item > kl && !strncmp(p, key, kl) && p[kl] == '=')
            snprintf(buf, len, "%.*s", (int)(item - kl - 1), p + kl + 1);
        p = comma ? comma + 1 : NULL;
    }
    return buf;
}

static void test_default_like(void)
{
    const op_family *fam = op_family_find("elementwise");
    char full[1024], got[1024], a[64], b[64];
    CHECK(fam && fam->default_config && fam->default_config(fam, "f16", full, sizeof full) == 0);
    if (!fam) return;
    const char *like = "block_size=64,loop=one_shot,pack_size=1,unroll=1,waves=1";
    CHECK(default_config_like("elementwise.mul", "f16", like, got, sizeof got) == 0);
    /* exactly the keys of `like`, in order, each with the family default's value */
    static const char *const keys[] = {"block_size", "loop", "pack_size", "unroll", "waves"};
    char want[1024];
    size_t n = 0;
    for (int i = 0; i < 5; i++)
        n += (size_t)snprintf(want + n, sizeof want - n, "%s%s=%s", i ? "," : "", keys[i],
                              value_of(full, keys[i], a, sizeof a));
    CHECK_STR(got, want);
    CHECK(strcmp(value_of(got, "block_size", a, sizeof a), "256") == 0);
    CHECK(strcmp(value_of(got, "waves", b, sizeof b), "32") == 0);
    /* the full default is written as it is */
    CHECK(default_config_like("elementwise.add", "f16", full, got, sizeof got) == 0);
    CHECK_STR(got, full);
    /* a parameter the default does not know, an unknown family, an op without a family */
    CHECK(default_config_like("elementwise.mul", "f16", "bogus=1,waves=1", got, sizeof got) == -1);
    CHECK(default_config_like("nosuchfamily.op", "f16", like, got, sizeof got) == -1);
    CHECK(default_config_like("mul", "f16", like, got, sizeof got) == -1);
    CHECK(default_config_like("elementwise.mul", "f16", like, got, 8) == -1);   /* too small */
}

static void test_twin(void)
{
    char *md = NULL, *html = NULL;
    size_t ml = 0, hl = 0;
    FILE *fm = open_memstream(&md, &ml), *fh = open_memstream(&html, &hl);
    twin t = {fm, fh, 0, 0, 0, NULL};
    twin_begin(&t, "T <1> & \"2\"");
    twin_heading(&t, 2, "elementwise.mul f16");
    twin_para(&t, "a `x<y` and **b&c** and [link](#elementwisemul-f16) 5%% <raw>");
    twin_item(&t, "one");
    twin_item(&t, "two `2`");
    const char *head[] = {"name", "value"};
    twin_table(&t, 2, head, "lr");
    const char *row[] = {"a|b", "`1`"};
    twin_row(&t, row);
    twin_table_end(&t);
    twin_image(&t, "fig.svg", "alt \"text\"", "cap `c`");
    twin_end(&t);
    fclose(fm);
    fclose(fh);
    CHECK(strstr(md, "## elementwise.mul f16\n\n") != NULL);
    CHECK(strstr(md, "a `x<y` and **b&c** and [link](#elementwisemul-f16) 5% <raw>\n\n") != NULL);
    CHECK(strstr(md, "- one\n- two `2`\n\n") != NULL);
    CHECK(strstr(md, "| name | value |\n|---|---:|\n| a\\|b | `1` |\n\n") != NULL);
    CHECK(strstr(md, "![alt \"text\"](fig.svg)\n\n*cap `c`*\n\n") != NULL);
    CHECK(strstr(html, "<title>T &lt;1&gt; &amp; &quot;2&quot;</title>") != NULL);
    CHECK(strstr(html, "<h2 id=\"elementwisemul-f16\">elementwise.mul f16</h2>") != NULL);
    CHECK(strstr(html, "<p>a <code>x&lt;y</code> and <strong>b&amp;c</strong> and "
                       "<a href=\"#elementwisemul-f16\">link</a> 5% &lt;raw&gt;</p>") != NULL);
    CHECK(strstr(html, "<ul>\n<li>one</li>\n<li>two <code>2</code></li>\n</ul>\n") != NULL);
    CHECK(strstr(html, "<th>name</th><th class=\"r\">value</th>") != NULL);
    CHECK(strstr(html, "<td>a|b</td><td class=\"r\"><code>1</code></td>") != NULL);
    CHECK(strstr(html, "<figure><a href=\"fig.svg\"><img src=\"fig.svg\" alt=\"alt &quot;text&quot;\"/></a>"
                       "<figcaption>cap <code>c</code></figcaption></figure>") != NULL);
    CHECK(strncmp(html, "<!DOCTYPE html>\n<html lang=\"en\">", 31) == 0);
    CHECK(strstr(html, "</main>\n</body>\n</html>\n") == html + strlen(html) - 24);
    free(md);
    free(html);
}

/* A problem over a (values 1, 2) and b (x, y, z), six variants, fastest first. */
static char *a_vals[] = {"1", "2"}, *b_vals[] = {"x", "y", "z"};
static int v0[] = {0, 1}, v1[] = {1, 1}, v2[] = {0, 0}, v3[] = {0, 2}, v4[] = {1, 0}, v5[] = {1, 2};

static void test_analysis(void)
{
    rp_param params[2] = {{"a", 2, a_vals}, {"b", 3, b_vals}};
    /* time, then energy per run (0: not measured) */
    rp_variant vars[6] = {
        {"a=1,b=y", v0, 10.0, 5.0}, {"a=2,b=y", v1, 10.5, 4.0}, {"a=1,b=x", v2, 11.0, 4.5},
        {"a=1,b=z", v3, 12.0, 3.0}, {"a=2,b=x", v4, 15.0, 0}, {"a=2,b=z", v5, 40.0, 3.0},
    };
    rp_problem p;
    memset(&p, 0, sizeof p);
    p.op = "fam.op";
    p.dtype = "f32";
    p.shape = "n=1";
    p.n_params = 2;
    p.params = params;
    p.n_variants = 6;
    p.variants = vars;
    rp_group g = {"fam.op", "f32", 0, 1};
    rp_device dev;
    memset(&dev, 0, sizeof dev);
    dev.n_problems = 1;
    dev.problems = &p;
    dev.n_groups = 1;
    dev.groups = &g;
    CHECK(rp_importance(&dev) == 0);
    /* a: best with a=1 is 10, with a=2 is 10.5 -> 5%; b: x 11, y 10, z 12 -> 20% */
    CHECK(fabs(p.best_by_value[0][0] - 10.0) < 1e-12 && fabs(p.best_by_value[0][1] - 10.5) < 1e-12);
    CHECK(fabs(p.spread[0] - 0.05) < 1e-12);
    CHECK(fabs(p.best_by_value[1][0] - 11.0) < 1e-12 && fabs(p.best_by_value[1][2] - 12.0) < 1e-12);
    CHECK(fabs(p.spread[1] - 0.2) < 1e-12);
    CHECK(rp_most_important(&p) == 1);
    CHECK(rp_param_index(&p, "b") == 1 && rp_param_index(&p, "c") == -1);
    const char *names[4];
    CHECK(rp_group_ranking(&dev, &g, names, 4) == 2);
    CHECK_STR(names[0], "b");
    CHECK_STR(names[1], "a");
    CHECK(rp_group_ranking(&dev, &g, names, 1) == 1);
    double cells[6];
    rp_slice(&p, 0, 1, cells);
    CHECK(fabs(cells[0] - 1.1) < 1e-12 && fabs(cells[1] - 1.0) < 1e-12 && fabs(cells[2] - 1.2) < 1e-12);
    CHECK(fabs(cells[3] - 1.5) < 1e-12 && fabs(cells[4] - 1.05) < 1e-12 && fabs(cells[5] - 4.0) < 1e-12);
    /* a missing combination is NAN */
    p.n_variants = 5;
    rp_slice(&p, 0, 1, cells);
    CHECK(isnan(cells[5]) && fabs(cells[4] - 1.05) < 1e-12);
    p.n_variants = 6;
    int bins[4];
    rp_histogram(&p, 2.0, 4, bins);    /* log bins of [1, 2]; 4x lands in the last bin */
    CHECK(bins[0] == 3 && bins[1] == 1 && bins[2] == 1 && bins[3] == 1);
    /* the Pareto front of time and energy: 11 us at 4.5 J loses to 10.5 us at 4 J, 40 us at 3 J
     * to 12 us at 3 J; the config without energy is not on it */
    unsigned char front[6] = {9, 9, 9, 9, 9, 9};
    CHECK(rp_pareto(&p, front) == 3);
    CHECK(front[0] == 1 && front[1] == 1 && front[2] == 0 && front[3] == 1 && front[4] == 0 &&
          front[5] == 0);
    /* one value only: no spread */
    rp_param single[1] = {{"c", 1, a_vals}};
    int z[1] = {0};
    rp_variant one[1] = {{"c=1", z, 3.0, 0}};
    rp_problem q;
    memset(&q, 0, sizeof q);
    q.n_params = 1;
    q.params = single;
    q.n_variants = 1;
    q.variants = one;
    dev.problems = &q;
    CHECK(rp_importance(&dev) == 0);
    CHECK(isnan(q.spread[0]) && rp_most_important(&q) == -1);
    for (int k = 0; k < 2; k++) free(p.best_by_value[k]);
    free(p.best_by_value);
    free(p.spread);
    free(q.best_by_value[0]);
    free(q.best_by_value);
    free(q.spread);
}

int main(void)
{
    test_labels();
    test_default_like();
    test_twin();
    test_analysis();
    return CHECK_DONE();
}
