/*
 * random_driver — runs a libFuzzer target (LLVMFuzzerTestOneInput) without libFuzzer: for machines without
 * clang's fuzzer runtime (the lent GPU machine) and for a quick random test in every build (tests/meson.build).
 *
 *     copy_fuzz_random [-seconds N] [-runs N] [-jobs J] [-seed S] [-max_len L] [-artifact_prefix P] [FILE...]
 *
 * Each FILE is run once first (the checked-in corpus), then each of J worker processes (this process when J is
 * 1) runs inputs of its own seeded stream until the time or the run count is reached: half random bytes of random length up to L, half
 * one of the FILEs with a few bytes changed.  The target reads its input as a stream of choices, so random
 * bytes are random cases; unlike libFuzzer nothing steers towards new coverage.  A target that aborts or faults
 * on an input is a finding: the worker writes the input to P + "crash-<seed>-<n>" from its signal handler (the
 * input is in memory already) and dies, and the run fails.  The executions of all workers are printed at the
 * end ("executions: N") with the findings.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_LEN = 4096, MAX_FILES = 4096, MAX_JOBS = 256 };

static uint8_t current[MAX_LEN];
static size_t current_len;
static char crash_path[512];

static void on_fault(int sig)
{
    int fd = open(crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        ssize_t w = write(fd, current, current_len);
        (void)w;
        close(fd);
    }
    static const char msg[] = "random_driver: the target failed on an input: written to ";
    ssize_t w = write(2, msg, sizeof msg - 1);
    w = write(2, crash_path, strlen(crash_path));
    w = write(2, "\n", 1);
    (void)w;
    signal(sig, SIG_DFL);
    raise(sig);
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

typedef struct seed_file {
    uint8_t *data;
    size_t len;
} seed_file;

static seed_file files[MAX_FILES];
static int nfiles;

static void add_file(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        char sub[1024];
        while (d && (e = readdir(d)) != NULL)
            if (e->d_name[0] != '.') {
                snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
                add_file(sub);
            }
        if (d)
            closedir(d);
        return;
    }
    if (!S_ISREG(st.st_mode) || nfiles == MAX_FILES)
        return;
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    seed_file *s = &files[nfiles];
    s->data = malloc(MAX_LEN);
    s->len = s->data ? fread(s->data, 1, MAX_LEN, f) : 0;
    fclose(f);
    if (s->data)
        nfiles++;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void run_one(const uint8_t *p, size_t n)
{
    memcpy(current, p, n);
    current_len = n;
    LLVMFuzzerTestOneInput(current, n);
}

/* Every corpus input once, each under its own crash file name. */
static void run_corpus(const char *prefix)
{
    for (int i = 0; i < nfiles; i++) {
        snprintf(crash_path, sizeof crash_path, "%scrash-corpus-%d", prefix, i);
        run_one(files[i].data, files[i].len);
    }
}

/* One worker: inputs of its own stream until the deadline or the run count; *count is shared with the parent. */

static void worker(uint64_t seed, double deadline, long long runs, size_t max_len, const char *prefix,
                   volatile long long *count)
{
    uint64_t s = seed;
    uint8_t buf[MAX_LEN];
    for (long long i = 0; runs < 0 || i < runs; i++) {
        if ((i & 63) == 0 && now() > deadline)
            break;
        size_t n;
        if (nfiles > 0 && (splitmix(&s) & 1)) {
            const seed_file *f = &files[splitmix(&s) % (uint64_t)nfiles];
            n = f->len;
            memcpy(buf, f->data, n);
            for (int k = 1 + (int)(splitmix(&s) % 4); k > 0 && n > 0; k--)
                buf[splitmix(&s) % n] = (uint8_t)splitmix(&s);
        } else {
            n = 1 + (size_t)(splitmix(&s) % max_len);
            for (size_t k = 0; k < n; k++)
                buf[k] = (uint8_t)splitmix(&s);
        }
        snprintf(crash_path, sizeof crash_path, "%scrash-%llx-%lld", prefix, (unsigned long long)seed, i);
        run_one(buf, n);
        *count += 1;
    }
}

int main(int argc, char **argv)
{
    double seconds = 10;
    long long runs = -1;
    int jobs = 1;
    uint64_t seed = 20261126;
    size_t max_len = 128;
    const char *prefix = "";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "-seconds=", 9) == 0)
            seconds = atof(a + 9);
        else if (strncmp(a, "-runs=", 6) == 0)
            runs = atoll(a + 6);
        else if (strncmp(a, "-jobs=", 6) == 0)
            jobs = atoi(a + 6);
        else if (strncmp(a, "-seed=", 6) == 0)
            seed = strtoull(a + 6, NULL, 0);
        else if (strncmp(a, "-max_len=", 9) == 0)
            max_len = (size_t)atol(a + 9);
        else if (strncmp(a, "-artifact_prefix=", 17) == 0)
            prefix = a + 17;
        else if (a[0] == '-') {
            fprintf(stderr, "usage: %s [-seconds=N] [-runs=N] [-jobs=J] [-seed=S] [-max_len=L] "
                            "[-artifact_prefix=P] [FILE|DIR...]\n", argv[0]);
            return 2;
        } else
            add_file(a);
    }
    if (jobs < 1 || jobs > MAX_JOBS || max_len < 1 || max_len > MAX_LEN || seconds < 0) {
        fprintf(stderr, "%s: -jobs must be 1..%d, -max_len 1..%d, -seconds at least 0\n", argv[0], MAX_JOBS,
                MAX_LEN);
        return 2;
    }
    signal(SIGABRT, on_fault);
    signal(SIGSEGV, on_fault);
    signal(SIGBUS, on_fault);
    signal(SIGFPE, on_fault);
    signal(SIGILL, on_fault);

    /* The corpus runs once: in this process with one job, else in the first job's child.  Not here before the
     * fork: a target that starts threads (the distributed copies start the library's pool) would leave the
     * children a pool whose workers were not copied, and their first parallel copy would wait for them forever. */
    if (jobs == 1)
        run_corpus(prefix);
    volatile long long *counts = mmap(NULL, sizeof(long long) * MAX_JOBS, PROT_READ | PROT_WRITE,
                                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (counts == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    double t0 = now(), deadline = t0 + seconds;
    long long per_job = runs < 0 ? -1 : (runs + jobs - 1) / jobs;
    printf("random_driver: %d corpus inputs, %d job%s, seed %llu, max_len %zu, %s\n", nfiles, jobs,
           jobs == 1 ? "" : "s", (unsigned long long)seed, max_len, runs < 0 ? "until the time is up" : "run count");
    fflush(stdout);
    pid_t pids[MAX_JOBS];
    if (jobs == 1) {   /* in this process: no fork (ThreadSanitizer builds, where the library may have threads) */
        worker(seed, deadline, per_job, max_len, prefix, &counts[0]);
        double dt = now() - t0;
        printf("executions: %lld in %.1f s (%.0f a second), findings: 0\n", nfiles + counts[0], dt,
               dt > 0 ? (nfiles + counts[0]) / dt : 0.0);
        return 0;
    }
    for (int j = 0; j < jobs; j++) {
        pids[j] = fork();
        if (pids[j] == 0) {
            if (j == 0)
                run_corpus(prefix);
            worker(seed + (uint64_t)j * 0x100000001ull, deadline, per_job, max_len, prefix, &counts[j]);
            _exit(0);
        }
    }
    int findings = 0;
    for (int j = 0; j < jobs; j++) {
        int st = 0;
        if (pids[j] < 0 || waitpid(pids[j], &st, 0) != pids[j] || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            findings++;
            fprintf(stderr, "random_driver: job %d (seed %llu) failed (%s %d)\n", j,
                    (unsigned long long)(seed + (uint64_t)j * 0x100000001ull),
                    WIFSIGNALED(st) ? "signal" : "status", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
        }
    }
    long long total = nfiles;
    for (int j = 0; j < jobs; j++)
        total += counts[j];
    double dt = now() - t0;
    printf("executions: %lld in %.1f s (%.0f a second), findings: %d\n", total, dt, dt > 0 ? total / dt : 0.0,
           findings);
    return findings ? 1 : 0;
}
