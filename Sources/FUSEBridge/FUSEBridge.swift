// FUSEBridge: the only target that imports libfuse. It turns kernel requests into calls on a
// `Filesystem` (PackFS's model) and the answers into replies.
//
// Concepts. `FUSEMount` owns one libfuse low-level session: mount, the request loop, unmount.
// `Operations` is the one operations table; each entry is a non-capturing @convention(c) closure
// that copies its arguments into Swift values, calls the model through `MountContext.serve`, and
// sends exactly one `Reply`. The model travels as the session's userdata (`Unmanaged.passRetained`).
//
// Caching. Names and attributes are cached for the timeouts the model gives; page cache and
// capabilities as `KernelCaching` chooses. Changes behind the kernel's back reach it through
// `KernelNotifier`, from a queue of its own so that no notification waits on a request it blocks.
//
// Threading. PackFS's own loop (`WorkerLoop`) serves requests on worker threads, one more started
// whenever none is left waiting, up to `maxThreads`. It ends when a worker sees the session exited
// (`ExitRequest` wakes one after `stop()` or a signal). A worker never waits on anything but the
// model, which is `Sendable` and does its own locking.
//
// Errors. A `FilesystemError` becomes its errno through `FilesystemError.errno` (the one table);
// anything else becomes EIO with a line on stderr naming the operation and the cause. No Swift
// error crosses into C, and the bridge holds no force-unwrap or precondition on kernel input.
