// libFuzzer's driver entry (compiler-rt's FuzzerInterface.h), for fuzz targets whose main is
// their own: SwiftPM renames an executable's entry point, which hides libFuzzer's main.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));
