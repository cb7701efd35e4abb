/* SPDX-License-Identifier: MIT */
/* Unit tests of the log and trace: line format, one write per line, file fallback, %p, JSON events. */
#include "config.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "log.h"
#include "output_file.h"
#include "trace.h"

/* Reads everything from fd into buf (NUL-terminated). */
static size_t slurp(int fd, char *buf, size_t len)
{
    size_t used = 0;
    ssize_t n;
    while (used + 1 < len && (n = read(fd, buf + used, len - 1 - used)) > 0)
        used += (size_t)n;
    buf[used] = '\0';
    return used;
}

/* A temporary file's descriptor, its name in path. */
static int temp_file(char *path, size_t len)
{
    snprintf(path, len, "/tmp/reprise-test-XXXXXX");
    return mkstemp(path);
}

/* The line format: program, pid, thread number, level word, message. */
static void test_format_line(void)
{
    char buf[128];
    size_t n = log_format_line(buf, sizeof buf, 4242, 3, LOG_WARN, "hello");
    CHECK_STR_EQ(buf, "reprise[4242:3] warning: hello\n");
    CHECK(n == strlen(buf));
    log_format_line(buf, sizeof buf, 1, 1, LOG_ERROR, "x");
    CHECK_STR_EQ(buf, "reprise[1:1] error: x\n");
    log_format_line(buf, sizeof buf, 1, 1, LOG_INFO, "x");
    CHECK_STR_EQ(buf, "reprise[1:1] info: x\n");
    log_format_line(buf, sizeof buf, 1, 1, LOG_DEBUG, "x");
    CHECK_STR_EQ(buf, "reprise[1:1] debug: x\n");
    /* A message too long for the buffer still ends in one newline. */
    char longmsg[300];
    memset(longmsg, 'a', sizeof longmsg - 1);
    longmsg[sizeof longmsg - 1] = '\0';
    n = log_format_line(buf, 64, 1, 1, LOG_INFO, longmsg);
    CHECK(n == 63);
    CHECK(buf[62] == '\n' && strchr(buf, '\n') == buf + 62);
    CHECK(strstr(buf, "...") != NULL);
    /* With a rank (RANK or LOCAL_RANK at init), the prefix carries it; without, it is as before. */
    log_set_rank(3);
    log_format_line(buf, sizeof buf, 4242, 2, LOG_WARN, "hello");
    CHECK_STR_EQ(buf, "reprise[4242:2 rank 3] warning: hello\n");
    CHECK(log_rank() == 3);
    log_set_rank(-1);
    log_format_line(buf, sizeof buf, 4242, 2, LOG_WARN, "hello");
    CHECK_STR_EQ(buf, "reprise[4242:2] warning: hello\n");
    CHECK(log_rank() == -1);
}

/* The threshold filters by level; log_always does not. */
static void test_threshold(void)
{
    char path[64];
    int fd = temp_file(path, sizeof path);
    log_setup(LOG_WARN, "");
    log_set_fd(fd);
    log_info("hidden %d", 1);
    log_warn("shown %d", 2);
    log_always(LOG_INFO, "forced %d", 3);
    log_debug("hidden %d", 4);
    CHECK(!log_enabled(LOG_INFO));
    CHECK(log_enabled(LOG_ERROR));
    char buf[1024];
    int rfd = open(path, O_RDONLY);
    slurp(rfd, buf, sizeof buf);
    close(rfd);
    CHECK(strstr(buf, "hidden") == NULL);
    CHECK_CONTAINS(buf, "] warning: shown 2\n");
    CHECK_CONTAINS(buf, "] info: forced 3\n");
    char expect[64];
    snprintf(expect, sizeof expect, "reprise[%ld:", (long)getpid());
    CHECK(strncmp(buf, expect, strlen(expect)) == 0);
    close(fd);
    unlink(path);
}

/* An unopenable log file falls back to stderr with a warning naming it. */
static void test_fallback_to_stderr(void)
{
    int pipefd[2];
    CHECK(pipe(pipefd) == 0);
    int saved_stderr = dup(STDERR_FILENO);
    dup2(pipefd[1], STDERR_FILENO);
    log_setup(LOG_INFO, "/nonexistent-dir/reprise.log");
    log_info("after fallback");
    dup2(saved_stderr, STDERR_FILENO);
    close(pipefd[1]);
    char buf[2048];
    slurp(pipefd[0], buf, sizeof buf);
    close(pipefd[0]);
    CHECK(log_fd() == STDERR_FILENO);
    CHECK_CONTAINS(buf, "warning: cannot open log file /nonexistent-dir/reprise.log: No such file or directory; "
                        "logging to stderr\n");
    CHECK_CONTAINS(buf, "info: after fallback\n");
}

/* A log file named with %p gets the pid; it is appended to. */
static void test_log_file_pid(void)
{
    char expanded[256], expect[256];
    CHECK(expand_path_template("/tmp/reprise-%p-%%.log", 77, -1, expanded, sizeof expanded));
    CHECK_STR_EQ(expanded, "/tmp/reprise-77-%.log");
    CHECK(!expand_path_template("/tmp/abcdefgh", 1, -1, expanded, 8));
    /* %r: the rank, or the pid when there is none; %%r is a literal %r. */
    CHECK(expand_path_template("/tmp/t.%r.%p.%%r", 77, 5, expanded, sizeof expanded));
    CHECK_STR_EQ(expanded, "/tmp/t.5.77.%r");
    CHECK(expand_path_template("/tmp/t.%r", 77, -1, expanded, sizeof expanded));
    CHECK_STR_EQ(expanded, "/tmp/t.77");
    log_setup(LOG_INFO, "/tmp/reprise-test-log-%p.txt");
    log_info("into the file");
    snprintf(expect, sizeof expect, "/tmp/reprise-test-log-%ld.txt", (long)getpid());
    int fd = open(expect, O_RDONLY);
    CHECK(fd >= 0);
    if (fd >= 0) {
        char buf[512];
        slurp(fd, buf, sizeof buf);
        CHECK_CONTAINS(buf, "info: into the file\n");
        close(fd);
    }
    close(log_fd());
    log_set_fd(STDERR_FILENO);
    unlink(expect);
}

#define THREADS 8
#define LINES_PER_THREAD 2000

/* Writes many long lines from one thread. */
static void *write_lines(void *arg)
{
    long me = (long)arg;
    for (int i = 0; i < LINES_PER_THREAD; i++)
        log_info("thread %ld line %d %0200d", me, i, 0);
    return NULL;
}

/* Lines from several threads never interleave, and each thread has its own small number. */
static void test_one_write_per_line(void)
{
    char path[64];
    int fd = temp_file(path, sizeof path);
    log_setup(LOG_INFO, "");
    log_set_fd(fd);
    pthread_t threads[THREADS];
    for (long t = 0; t < THREADS; t++)
        pthread_create(&threads[t], NULL, write_lines, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);
    log_set_fd(STDERR_FILENO);
    close(fd);
    FILE *in = fopen(path, "r");
    char line[1024];
    int good = 0, bad = 0;
    unsigned seen_threads[64] = {0};
    while (fgets(line, sizeof line, in)) {
        long pid, thread, line_no;
        unsigned tnum;
        char zeros[256];
        if (sscanf(line, "reprise[%ld:%u] info: thread %ld line %ld %255s", &pid, &tnum, &thread, &line_no, zeros) ==
                5 &&
            strlen(zeros) == 200 && pid == (long)getpid() && tnum < 64) {
            good++;
            seen_threads[tnum] = 1;
        } else {
            bad++;
        }
    }
    fclose(in);
    unlink(path);
    int distinct = 0;
    for (int i = 0; i < 64; i++)
        distinct += seen_threads[i];
    CHECK(good == THREADS * LINES_PER_THREAD);
    CHECK(bad == 0);
    CHECK(distinct == THREADS);
}

/* Trace events are one JSON object per line with the common fields. */
static void test_trace_event(void)
{
    char path[64];
    int fd = temp_file(path, sizeof path);
    close(fd);
    trace_setup(path);
    CHECK(trace_enabled());
    trace_event("config", "\"x\":%d", 1);
    char big[5000];
    memset(big, 'b', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    trace_event("exit", "\"blob\":\"%s\"", big);
    trace_close();
    CHECK(!trace_enabled());
    fd = open(path, O_RDONLY);
    char buf[16384];
    slurp(fd, buf, sizeof buf);
    close(fd);
    unlink(path);
    char expect[128];
    snprintf(expect, sizeof expect, "{\"ev\":\"config\",\"t_us\":");
    CHECK(strncmp(buf, expect, strlen(expect)) == 0);
    snprintf(expect, sizeof expect, ",\"pid\":%ld,\"tid\":", (long)getpid());
    CHECK_CONTAINS(buf, expect);
    CHECK_CONTAINS(buf, ",\"x\":1}\n{\"ev\":\"exit\"");
    char *second = strchr(buf, '\n') + 1;
    CHECK(strlen(second) == strlen(big) + strlen("\"blob\":\"\"}\n") + (size_t)(strstr(second, "\"blob\"") - second));
    /* An unopenable trace warns and is disabled. */
    trace_setup("/nonexistent-dir/trace.json");
    CHECK(!trace_enabled());
}

int main(void)
{
    test_format_line();
    test_threshold();
    test_fallback_to_stderr();
    test_log_file_pid();
    test_one_write_per_line();
    test_trace_event();
    return check_result("test_log");
}
