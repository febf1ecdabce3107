// FUSEBridge: the only target that imports libfuse. It turns kernel requests into calls on a
// `Filesystem` (PackFS's model) and the answers into replies.
//
// Concepts. `FUSEMount` owns one libfuse low-level session: mount, the request loop, unmount.
// `Operations` is the one operations table; each entry is a non-capturing @convention(c) closure
// that copies its arguments into Swift values, calls the model through `MountContext.serve`, and sends
// exactly one `Reply`. The model travels as the session's userdata (`Unmanaged.passRetained`) and
// is recovered with `fuse_req_userdata`.
//
// Caching. Names and attributes are cached for the timeouts the model puts in each `Entry` and
// each getattr/setattr answer (`TimedAttributes`). File content stays in the page cache across
// opens when the model says `keepCache`, and always with stateless opens (`KernelCaching`, what
// `packfs mount` asks for). Changes behind the kernel's back reach it through `KernelCache`
// (`KernelNotifier`, made before the model that holds it and handed to `FUSEMount`), sent from a
// queue of its own so that no notification waits on a request it is itself blocking.
// Capabilities are chosen in `KernelCaching.negotiate`.
//
// Threading. PackFS's own loop (`WorkerLoop`, not libfuse's `fuse_session_loop_mt`, whose ending
// by pthread_cancel aborts under ThreadSanitizer) reads and serves requests on worker threads,
// one more started whenever none is left waiting for the next request, up to `maxThreads`. It
// ends when a worker sees the session exited: `ExitRequest` sends a request of its own to wake
// one after `stop()` or a signal; after an external unmount the device read fails. The model is
// `Sendable` and does its own locking. A worker never waits on anything but the model.
//
// Errors. A `FilesystemError` becomes its errno through `FilesystemError.errno` (the one table);
// anything else becomes EIO with a line on stderr naming the operation and the cause. No Swift
// error crosses into C, and the bridge holds no force-unwrap or precondition on kernel input.
