// The work `packfs verify` cannot skip (issue 41's work floor), as country.sh measures it: one
// pack's tiles of one tile set read from the database in martin's order (z, x ascending, each
// column's rows from the highest down, as MBTilesTiles.forEachInPlace walks an XYZ source: a seek
// to the next column, then its rows through the tiles index, the pack's membership checked as the
// store checks it), each zlib-stored tile inflated once by libdeflate (which checks it) and the
// CRC-32 of its content taken, and MD5 over the places and the stored deflate streams in a gzip
// frame (export rule 2): martin's agg_tiles_hash of the pack, one thread, timed whole. No vector
// check and no plan check: those are verify's own. Prints the seconds, the tiles and the hash, so
// that the benchmark can compare the hash with verify's.
//
// usage: verify_floor DB REGION_ID URL_TEMPLATE   (pixel ratio 1; the set's tiles all XYZ)
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <libdeflate.h>
#include <openssl/md5.h>
#include <string.h>

#define FLOOR_NAME "verify_floor"
#include "floor_common.h"

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql) {
  sqlite3_stmt *statement;
  if (sqlite3_prepare_v2(db, sql, -1, &statement, NULL) != SQLITE_OK) fail(sql, db);
  return statement;
}

// The inflater, its growing buffer, and the hash's state.
struct walk {
  struct libdeflate_decompressor *inflater;
  unsigned char *out;
  size_t room;
  MD5_CTX md5;
  long tiles, failed;
};

// One tile into the hash: its place as decimal texts, then its MBTiles bytes under export rule 2.
static void add(struct walk *w, long z, long x, long tms_row, const unsigned char *stored, size_t size, int compressed) {
  char place[64];
  MD5_Update(&w->md5, place, (size_t)snprintf(place, sizeof place, "%ld%ld%ld", z, x, tms_row));
  w->tiles++;
  if (!compressed) { MD5_Update(&w->md5, stored, size); return; }  // gzipped as served: kept as is
  size_t got = 0, used = 0;
  enum libdeflate_result result;
  while ((result = libdeflate_zlib_decompress_ex(w->inflater, stored, size, w->out, w->room, &used, &got)) ==
         LIBDEFLATE_INSUFFICIENT_SPACE) {
    free(w->out);
    if (!(w->out = malloc(w->room *= 4))) fail("buffer", NULL);
  }
  if (result != LIBDEFLATE_SUCCESS || used != size || size < 6) { w->failed++; return; }
  unsigned crc = libdeflate_crc32(0, w->out, got);
  unsigned char frame[18] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff};
  for (int i = 0; i < 4; i++) {
    frame[10 + i] = (unsigned char)(crc >> (8 * i));
    frame[14 + i] = (unsigned char)(got >> (8 * i));
  }
  MD5_Update(&w->md5, frame, 10);
  MD5_Update(&w->md5, stored + 2, size - 6);
  MD5_Update(&w->md5, frame + 10, 8);
}

int main(int argc, char **argv) {
  if (argc != 4) { fprintf(stderr, "usage: verify_floor DB REGION_ID URL_TEMPLATE\n"); return 2; }
  sqlite3 *db;
  if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) fail(argv[1], db);
  long region = atol(argv[2]);
  const char *template = argv[3];
  double start = now();
  sqlite3_stmt *next_column = prepare(db,
      "SELECT z, x FROM tiles WHERE url_template = ?1 AND pixel_ratio = 1 AND (z, x) > (?2, ?3) "
      "ORDER BY z, x LIMIT 1");
  sqlite3_stmt *rows = prepare(db,
      "SELECT y, data, compressed FROM tiles t WHERE url_template = ?1 AND pixel_ratio = 1 AND z = ?2 AND x = ?3 "
      "AND data IS NOT NULL AND EXISTS (SELECT 1 FROM region_tiles rt WHERE rt.region_id = ?4 AND rt.tile_id = t.id) "
      "ORDER BY y DESC");
  struct walk w = {.inflater = libdeflate_alloc_decompressor(), .out = malloc(1 << 18), .room = 1 << 18};
  if (!w.inflater || !w.out) fail("inflater", NULL);
  MD5_Init(&w.md5);
  sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
  long z = -1, x = -1;
  for (;;) {
    sqlite3_bind_text(next_column, 1, template, -1, SQLITE_STATIC);
    sqlite3_bind_int64(next_column, 2, z);
    sqlite3_bind_int64(next_column, 3, x);
    if (sqlite3_step(next_column) != SQLITE_ROW) break;
    z = sqlite3_column_int64(next_column, 0);
    x = sqlite3_column_int64(next_column, 1);
    sqlite3_reset(next_column);
    sqlite3_bind_text(rows, 1, template, -1, SQLITE_STATIC);
    sqlite3_bind_int64(rows, 2, z);
    sqlite3_bind_int64(rows, 3, x);
    sqlite3_bind_int64(rows, 4, region);
    while (sqlite3_step(rows) == SQLITE_ROW) {
      long y = sqlite3_column_int64(rows, 0);
      const unsigned char *stored = sqlite3_column_blob(rows, 1);
      add(&w, z, x, (1L << z) - 1 - y, stored, (size_t)sqlite3_column_bytes(rows, 1), sqlite3_column_int(rows, 2));
    }
    sqlite3_reset(rows);
  }
  unsigned char digest[16];
  MD5_Final(digest, &w.md5);
  double seconds = now() - start;
  sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
  printf("%.6f %ld ", seconds, w.tiles);
  for (int i = 0; i < 16; i++) printf("%02X", digest[i]);
  printf(" %ld\n", w.failed);
  return w.failed ? 1 : 0;
}
