/* bench_front: time and memory of the SBUF allocator's front half.
 *
 * Generates kernels of 1,000, 10,000 and 100,000 tensors (sba_gen_module:
 * pressure 0.7, trn2, seed 1, the generator's default shape mix) and runs
 * sba_analyze_module on each — renumber_locations, memloc_split,
 * find_partners, the anchors, live_range, create_eintervals and build — then
 * prints a markdown table: the seconds of each phase (sba_function_report),
 * the generation time, nodes, edges and program points, and the peak
 * resident set. Each size runs in its own child process, so that its peak
 * RSS (getrusage) is its own; the child also reports the RSS after
 * generation, which is the module alone. Last, the growth exponent of the
 * analysis time between consecutive sizes: log(t2/t1) / log(n2/n1), 1 for
 * linear. Times are the best of several runs (7 up to 10,000 tensors, else 3).
 *
 * usage: bench_front [TENSORS...]   (default 1000 10000 100000) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sballoc/alloc.h"
#include "sballoc/gen.h"

enum { MAX_SIZES = 16 };
/* The phases sba_analyze_module runs. */
static const uint32_t front_phases[] = {SBA_PHASE_RENUMBER, SBA_PHASE_SPLIT, SBA_PHASE_PARTNERS,
                                        SBA_PHASE_ANCHORS, SBA_PHASE_LIVE, SBA_PHASE_BUILD};
enum { NPHASES = sizeof front_phases / sizeof front_phases[0] };

typedef struct result {
    uint32_t tensors;
    int ok;
    double gen_seconds, total_seconds;
    double seconds[NPHASES];
    uint32_t nodes, points;
    uint64_t edges;
    long rss_module_kb, rss_peak_kb;
    char message[256];
} result;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss; /* kilobytes on Linux */
}

/* One run of one size, in the calling (child) process. */
static void measure_once(uint32_t tensors, result *r)
{
    memset(r, 0, sizeof *r);
    r->tensors = tensors;
    sba_gen_options g;
    sba_gen_defaults(&g);
    g.seed = 1;
    g.tensors = tensors;
    g.pressure = 0.7;
    g.target = sba_target_preset("trn2");
    sba_error err;
    double t0 = now();
    bir_module *m = sba_gen_module(&g, NULL, &err);
    r->gen_seconds = now() - t0;
    if (!m) {
        snprintf(r->message, sizeof r->message, "gen: %.200s", err.message);
        return;
    }
    r->rss_module_kb = peak_rss_kb();
    sba_alloc_report rep;
    t0 = now();
    sba_status st = sba_analyze_module(m, NULL, &rep, &err);
    r->total_seconds = now() - t0;
    r->rss_peak_kb = peak_rss_kb();
    if (st != SBA_OK) {
        snprintf(r->message, sizeof r->message, "analyze: %.200s", err.message);
    } else {
        const sba_function_report *fr = &rep.fns[0];
        for (uint32_t p = 0; p < NPHASES; p++) r->seconds[p] = fr->seconds[front_phases[p]];
        r->nodes = fr->nodes;
        r->edges = fr->edges;
        r->points = fr->points;
        r->ok = 1;
    }
    sba_alloc_report_free(&rep);
    bir_module_free(m);
}

/* The best of several runs (7 up to 10,000 tensors, else 3): each phase's
 * least time, and the least total. The machine's other load only adds. */
static void measure(uint32_t tensors, result *r)
{
    uint32_t runs = tensors <= 10000 ? 7 : 3;
    measure_once(tensors, r);
    for (uint32_t k = 1; k < runs && r->ok; k++) {
        result more;
        measure_once(tensors, &more);
        if (!more.ok) {
            *r = more;
            return;
        }
        if (more.gen_seconds < r->gen_seconds) r->gen_seconds = more.gen_seconds;
        if (more.total_seconds < r->total_seconds) r->total_seconds = more.total_seconds;
        for (uint32_t p = 0; p < NPHASES; p++)
            if (more.seconds[p] < r->seconds[p]) r->seconds[p] = more.seconds[p];
        r->rss_peak_kb = more.rss_peak_kb;
    }
}

/* Runs measure() in a child and reads its result back through a pipe. */
static void measure_in_child(uint32_t tensors, result *r)
{
    int fd[2];
    if (pipe(fd) != 0) {
        perror("bench_front: pipe");
        exit(1);
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("bench_front: fork");
        exit(1);
    }
    if (pid == 0) {
        close(fd[0]);
        result mine;
        measure(tensors, &mine);
        ssize_t w = write(fd[1], &mine, sizeof mine);
        _exit(w == (ssize_t)sizeof mine ? 0 : 1);
    }
    close(fd[1]);
    size_t got = 0;
    while (got < sizeof *r) {
        ssize_t n = read(fd[0], (char *)r + got, sizeof *r - got);
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fd[0]);
    int status;
    waitpid(pid, &status, 0);
    if (got != sizeof *r) {
        memset(r, 0, sizeof *r);
        r->tensors = tensors;
        snprintf(r->message, sizeof r->message, "the child failed (status %d)", status);
    }
}

int main(int argc, char **argv)
{
    uint32_t sizes[MAX_SIZES] = {1000, 10000, 100000}, nsizes = 3;
    if (argc > 1) {
        nsizes = 0;
        for (int i = 1; i < argc && nsizes < MAX_SIZES; i++) {
            long v = strtol(argv[i], NULL, 10);
            if (v < 1 || v > 100000000) {
                fprintf(stderr, "usage: bench_front [TENSORS...]   (1 to 100000000 each)\n");
                return 2;
            }
            sizes[nsizes++] = (uint32_t)v;
        }
    }
    static result res[MAX_SIZES];
    for (uint32_t i = 0; i < nsizes; i++) measure_in_child(sizes[i], &res[i]);

    printf("SBUF front half (sba_analyze_module), generated kernels: pressure 0.7, trn2, seed 1\n\n");
    printf("| tensors | nodes | edges | points | gen s |");
    for (uint32_t p = 0; p < NPHASES; p++) printf(" %s s |", sba_phase_name(front_phases[p]));
    printf(" analyze s | RSS module MB | peak RSS MB |\n|---:|---:|---:|---:|---:|");
    for (uint32_t p = 0; p < NPHASES; p++) printf("---:|");
    printf("---:|---:|---:|\n");
    for (uint32_t i = 0; i < nsizes; i++) {
        const result *r = &res[i];
        if (!r->ok) {
            printf("| %u | failed: %s |\n", r->tensors, r->message);
            continue;
        }
        printf("| %u | %u | %llu | %u | %.3f |", r->tensors, r->nodes, (unsigned long long)r->edges, r->points,
               r->gen_seconds);
        for (uint32_t p = 0; p < NPHASES; p++) printf(" %.4f |", r->seconds[p]);
        printf(" %.4f | %.1f | %.1f |\n", r->total_seconds, (double)r->rss_module_kb / 1024.0,
               (double)r->rss_peak_kb / 1024.0);
    }
    printf("\nGrowth exponent of the analysis time, log(t2/t1) / log(n2/n1):\n\n");
    for (uint32_t i = 1; i < nsizes; i++) {
        const result *a = &res[i - 1], *b = &res[i];
        if (!a->ok || !b->ok || a->total_seconds <= 0 || b->total_seconds <= 0 || a->tensors == b->tensors)
            continue;
        double e = log(b->total_seconds / a->total_seconds) / log((double)b->tensors / a->tensors);
        double eb = a->seconds[NPHASES - 1] > 0 && b->seconds[NPHASES - 1] > 0
                        ? log(b->seconds[NPHASES - 1] / a->seconds[NPHASES - 1]) /
                              log((double)b->tensors / a->tensors)
                        : NAN;
        printf("- %u -> %u tensors: %.2f (build alone %.2f)\n", a->tensors, b->tensors, e, eb);
    }
    return 0;
}
