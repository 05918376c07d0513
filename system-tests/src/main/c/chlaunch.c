/*
 * chlaunch: runs clickhouse-local (from libchdb) with this program's command line, argv[0] included.
 * Query output goes to stdout. The exit status is 1 if libchdb reports an error (it reports argument
 * errors; query errors are only printed on stderr), else 0. A watchdog thread exits the process when
 * the parent dies, so a crashed test JVM leaves no server behind.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

struct local_result_v2 {
    char *buf;
    size_t len;
    void *vec;
    double elapsed;
    uint64_t rows_read;
    uint64_t bytes_read;
    char *error_message;
};

struct local_result_v2 *query_stable_v2(int argc, char **argv);

static pid_t parent;

static void *watch_parent(void *unused) {
    (void) unused;
    while (getppid() == parent) sleep(1);
    fputs("chlaunch: parent process died, exiting\n", stderr);
    _exit(3);
}

int main(int argc, char **argv) {
    pthread_t watchdog;
    parent = getppid();
    pthread_create(&watchdog, NULL, watch_parent, NULL);
    struct local_result_v2 *result = query_stable_v2(argc, argv);
    if (result == NULL) {
        fputs("chlaunch: query_stable_v2 returned no result\n", stderr);
        return 1;
    }
    if (result->len > 0) fwrite(result->buf, 1, result->len, stdout);
    if (result->error_message != NULL) {
        fprintf(stderr, "%s\n", result->error_message);
        return 1;
    }
    return 0;
}
