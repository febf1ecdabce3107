// The inflation `packfs verify` cannot skip, as a floor for fresh.sh: every tile of a pack read
// from the database into memory first (not timed), then each gunzipped (or, where the store
// marks it compressed, zlib-inflated, and gunzipped again if that gives gzip) with libdeflate
// into one reused buffer, one thread. Prints the seconds of the inflation alone and the bytes
// it gave, so the benchmark can add it to the other floors verify's work contains.
//
// usage: inflate_floor DB   (every tile of every pack: fresh.sh's databases hold one pack)
#include <libdeflate.h>
#include <string.h>

#define FLOOR_NAME "inflate_floor"
#include "floor_common.h"

struct tile { size_t offset, size; int compressed; };

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: inflate_floor DB\n"); return 1; }
  sqlite3 *db;
  if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) fail(argv[1], db);
  sqlite3_stmt *rows;
  const char *sql = "SELECT t.data, t.compressed FROM tiles t JOIN region_tiles rt ON rt.tile_id = t.id "
                    "WHERE t.data IS NOT NULL ORDER BY t.id";
  if (sqlite3_prepare_v2(db, sql, -1, &rows, NULL) != SQLITE_OK) fail("prepare", db);
  size_t count = 0, capacity = 1 << 16, used = 0, room = 1 << 26;
  struct tile *tiles = malloc(capacity * sizeof *tiles);
  unsigned char *bytes = malloc(room);
  if (!tiles || !bytes) fail("buffers", NULL);
  while (sqlite3_step(rows) == SQLITE_ROW) {
    size_t size = (size_t)sqlite3_column_bytes(rows, 0);
    if (count == capacity && !(tiles = realloc(tiles, (capacity *= 2) * sizeof *tiles))) fail("tiles", NULL);
    while (used + size > room) if (!(bytes = realloc(bytes, room *= 2))) fail("bytes", NULL);
    memcpy(bytes + used, sqlite3_column_blob(rows, 0), size);
    tiles[count++] = (struct tile){used, size, sqlite3_column_int(rows, 1)};
    used += size;
  }
  sqlite3_finalize(rows);
  sqlite3_close(db);

  struct libdeflate_decompressor *inflater = libdeflate_alloc_decompressor();
  size_t out_room = 1 << 24, inner_room = 1 << 24, made = 0, failed = 0;
  unsigned char *out = malloc(out_room), *inner = malloc(inner_room);
  if (!inflater || !out || !inner) fail("inflater", NULL);
  double start = now();
  for (size_t i = 0; i < count; i++) {
    const unsigned char *in = bytes + tiles[i].offset;
    size_t size = tiles[i].size, got = 0;
    if (tiles[i].compressed) {
      if (libdeflate_zlib_decompress(inflater, in, size, inner, inner_room, &got) != LIBDEFLATE_SUCCESS) { failed++; continue; }
      in = inner;
      size = got;
    }
    if (size >= 2 && in[0] == 0x1f && in[1] == 0x8b) {
      if (libdeflate_gzip_decompress(inflater, in, size, out, out_room, &got) != LIBDEFLATE_SUCCESS) { failed++; continue; }
    }
    made += got;
  }
  double seconds = now() - start;
  printf("%.6f %zu %zu %zu\n", seconds, count, made, failed);
  return failed ? 1 : 0;
}
