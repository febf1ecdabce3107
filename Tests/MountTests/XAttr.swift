import Foundation

/// getxattr/setxattr/listxattr from libc: Swift's Glibc module does not include <sys/xattr.h>,
/// so the tests look the functions up at run time.
enum XAttr {
    typealias Get = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int
    typealias Set = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32
    typealias List = @convention(c) (UnsafePointer<CChar>, UnsafeMutablePointer<CChar>?, Int) -> Int
    typealias Remove = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>) -> Int32

    static let get = unsafeBitCast(symbol("getxattr"), to: Get.self)
    static let set = unsafeBitCast(symbol("setxattr"), to: Set.self)
    static let list = unsafeBitCast(symbol("listxattr"), to: List.self)
    static let remove = unsafeBitCast(symbol("removexattr"), to: Remove.self)

    /// A function of the process's own libraries (libc is always loaded).
    private static func symbol(_ name: String) -> UnsafeMutableRawPointer? { dlsym(dlopen(nil, RTLD_NOW), name) }
}
