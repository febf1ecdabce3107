import Foundation

/// getxattr/setxattr/listxattr from libc: Swift's Glibc module does not include <sys/xattr.h>,
/// so the tests look the functions up at run time.
enum XAttr {
    typealias Get = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int
    typealias Set = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32
    typealias List = @convention(c) (UnsafePointer<CChar>, UnsafeMutablePointer<CChar>?, Int) -> Int
    typealias Remove = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>) -> Int32

    private static let libc = dlopen(nil, RTLD_NOW)
    static let get = unsafeBitCast(dlsym(libc, "getxattr"), to: Get.self)
    static let set = unsafeBitCast(dlsym(libc, "setxattr"), to: Set.self)
    static let list = unsafeBitCast(dlsym(libc, "listxattr"), to: List.self)
    static let remove = unsafeBitCast(dlsym(libc, "removexattr"), to: Remove.self)
}
