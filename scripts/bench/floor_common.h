// What the floor programs (inflate_floor.c, verify_floor.c) share: the clock they time with and
// their one-line failure. Define FLOOR_NAME (the program's name, for its messages) first.
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

// Exits 1 naming what failed and SQLite's reason (no database: an allocation failed).
static void fail(const char *what, sqlite3 *db) {
  fprintf(stderr, FLOOR_NAME ": %s: %s\n", what, db ? sqlite3_errmsg(db) : "out of memory");
  exit(1);
}
