// Interchange: MBTiles 1.3 and PMTiles v3 readers and writers over PackStore.
