// PackFS: the filesystem model over PackStore (nodes, inode codec, lookup/readdir/read, mutations).
// It knows nothing of the kernel (FUSEBridge) or of HTTP (a region file that was closed reaches the
// downloader through a protocol the executable wires up).
