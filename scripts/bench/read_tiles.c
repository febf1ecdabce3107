// The read benchmark's reader: every file listed in LIST (paths relative to ROOT) opened, read to
// EOF and closed, as a renderer or a tile server reads a tile, split over THREADS threads, with
// nothing between the system calls, so that the files' own cost is what it times. (A Python reader
// with threads, used before, spent much of each pass waiting for the interpreter lock, which
// diluted the difference between filesystems.)
// usage: read_tiles ROOT LIST THREADS [ROUNDS]   (ROUNDS > 1 reads the list again and again, for
// warm passes long enough to time: 20,000 warm tiles take about 50 ms; the rate counts every read)
// Prints "RATE SECONDS BYTES USER SYSTEM": the last two the readers' own CPU seconds (all threads),
// in user space and in the kernel (the path walks, the FUSE round trips, the page cache's copies).
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

struct part {
    char **paths;
    size_t count, first, step, rounds;
    long long bytes;
};

static void *read_part(void *argument) {
    struct part *part = argument;
    char *buffer = malloc(1 << 20);
    for (size_t round = 0; round < part->rounds; round++) {
        for (size_t i = part->first; i < part->count; i += part->step) {
            int fd = open(part->paths[i], O_RDONLY);
            if (fd < 0) { perror(part->paths[i]); exit(1); }
            ssize_t n;
            while ((n = read(fd, buffer, 1 << 20)) > 0) part->bytes += n;
            if (n < 0) { perror(part->paths[i]); exit(1); }
            close(fd);
        }
    }
    free(buffer);
    return NULL;
}

static char **read_list(const char *listing, size_t *count) {
    FILE *list = fopen(listing, "r");
    if (!list) { perror(listing); exit(1); }
    size_t capacity = 1024;
    char **paths = malloc(capacity * sizeof *paths), line[4096];
    *count = 0;
    while (fgets(line, sizeof line, list)) {
        line[strcspn(line, "\n")] = 0;
        if (!*line) continue;
        if (*count == capacity) paths = realloc(paths, (capacity *= 2) * sizeof *paths);
        paths[(*count)++] = strdup(line);
    }
    fclose(list);
    return paths;
}

int main(int argc, char **argv) {
    if (argc != 4 && argc != 5) { fprintf(stderr, "usage: read_tiles ROOT LIST THREADS [ROUNDS]\n"); return 2; }
    size_t count, threads = (size_t)atoi(argv[3]), rounds = argc == 5 ? (size_t)atoi(argv[4]) : 1;
    char **paths = read_list(argv[2], &count);
    // Paths relative to ROOT (z/x/y.pbf), so that every tree is walked through the same three
    // names: absolute paths would add each root's own prefix, and a mount-point crossing for a
    // mount, which measure where a tree sits rather than how it serves a tile.
    if (chdir(argv[1]) != 0) { perror(argv[1]); return 1; }
    pthread_t ids[threads];
    struct part parts[threads];
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (size_t t = 0; t < threads; t++) {
        parts[t] = (struct part){paths, count, t, threads, rounds, 0};
        pthread_create(&ids[t], NULL, read_part, &parts[t]);
    }
    long long bytes = 0;
    for (size_t t = 0; t < threads; t++) {
        pthread_join(ids[t], NULL);
        bytes += parts[t].bytes;
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    double elapsed = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    double user = (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec / 1e6;
    double system = (double)usage.ru_stime.tv_sec + (double)usage.ru_stime.tv_usec / 1e6;
    printf("%.0f %.3f %lld %.3f %.3f\n", (double)(count * rounds) / elapsed, elapsed, bytes, user, system);
    return 0;
}
