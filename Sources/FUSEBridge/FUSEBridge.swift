// FUSEBridge: the only target that imports libfuse. Session, @convention(c) trampolines, replies.
import CFuse
