// The geojson fuzz target (scripts/fuzz.sh builds it with -sanitize=fuzzer,address).
import FuzzDriver

FuzzDriver.run(.geojson)
