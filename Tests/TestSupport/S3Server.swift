import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// moto's S3 server (`python3 -m moto.server`, pip's `moto[server]`) on a free 127.0.0.1 port,
/// checking every request's signature: at start it makes an IAM user allowed everything, its
/// access key, temporary credentials of a role (STS AssumeRole), and the bucket, then turns
/// moto's authentication on. Parts down to 1 byte are accepted (S3_UPLOAD_PART_MIN_SIZE), so
/// tests upload small packs in many parts. State lives in moto's memory and dies with it.
///
/// `front(...)` puts Tests/servers/s3front.py before it, to fail or hold chosen requests.
public final class S3Server: Sendable {
    public let server: TestServer
    public let bucket: String
    public let accessKeyID: String
    public let secretAccessKey: String
    /// AssumeRole's credentials: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN.
    public let temporary: [String: String]
    public var endpoint: String { server.baseURL }

    /// The environment `packfs export` needs for this server (credentials, region, endpoint).
    public var environment: [String: String] {
        ["AWS_ACCESS_KEY_ID": accessKeyID, "AWS_SECRET_ACCESS_KEY": secretAccessKey, "AWS_SESSION_TOKEN": "",
         "AWS_REGION": "us-east-1", "AWS_ENDPOINT_URL": endpoint]
    }

    private init(server: TestServer, bucket: String, key: String, secret: String, temporary: [String: String]) {
        self.server = server
        self.bucket = bucket
        self.accessKeyID = key
        self.secretAccessKey = secret
        self.temporary = temporary
    }

    deinit { server.stop() }

    /// `checksSignatures` false leaves moto's authentication off: then (and only then) it serves
    /// anonymous reads of public objects (with it on, moto 5.2 fails them with a 500).
    public static func moto(bucket: String = "packs", checksSignatures: Bool = true) throws -> S3Server {
        let directory = try TemporaryDirectory(prefix: "packfs-moto")
        let port = try LoopbackPort.free()
        let process = try TestServer.launch(
            "/usr/bin/env", ["S3_UPLOAD_PART_MIN_SIZE=1", "python3", "-m", "moto.server", "-H", "127.0.0.1", "-p", "\(port)"],
            output: directory.path("server.out"))
        let server = TestServer(process: process, port: port, directory: directory, accessLogPath: directory.path("server.out"),
                                servedRoot: nil)
        guard TestServer.waitUntilListening(port: port, process: process, timeout: 60) else {
            let output = (try? String(contentsOfFile: directory.path("server.out"), encoding: .utf8)) ?? ""
            server.stop()
            throw TestServer.Failure.startFailed("moto (pip install 'moto[server]'): \(output)")
        }
        do {
            let (key, secret) = try makeUser(server.baseURL)
            let temporary = try makeRoleCredentials(server.baseURL)
            try call(server.baseURL, service: "s3", ["-X", "PUT", "\(server.baseURL)/\(bucket)"])
            if checksSignatures {
                _ = try curl(["-X", "POST", "-H", "Content-Type: text/plain", "--data-binary", "0", "\(server.baseURL)/moto-api/reset-auth"])
            }
            return S3Server(server: server, bucket: bucket, key: key, secret: secret, temporary: temporary)
        } catch {
            server.stop()
            throw error
        }
    }

    /// Tests/servers/s3front.py in front of this server with `arguments` (--fail, --script,
    /// --hold); its arrival log is the TestServer's `arrivals()`.
    public func front(_ arguments: [String]) throws -> TestServer {
        let directory = try TemporaryDirectory(prefix: "packfs-s3front")
        let portFile = directory.path("port")
        let script = ProjectPaths.servers.appendingPathComponent("s3front.py").path
        let process = try TestServer.launch(
            "/usr/bin/env", ["python3", script, "--upstream", "127.0.0.1:\(server.port)", "--port-file", portFile,
                             "--arrival-log", directory.path("arrivals.log"), "--watch-pid", "\(getpid())"] + arguments,
            output: directory.path("server.out"))
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline, process.isRunning {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let port = Int(text),
               TestServer.waitUntilListening(port: port, process: process, timeout: 5) {
                return TestServer(process: process, port: port, directory: directory, accessLogPath: directory.path("arrivals.log"),
                                  servedRoot: nil)
            }
            usleep(20_000)
        }
        TestServer.terminate(process)
        directory.remove()
        throw TestServer.Failure.startFailed("s3front.py did not start")
    }

    /// The object's bytes; nil when there is none (404).
    public func object(_ key: String) throws -> Data? {
        let file = server.directory.path("get-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let status = try signed(["-o", file, "-w", "%{http_code}", "\(endpoint)/\(bucket)/\(Self.encode(key))"])
        if status == "404" { return nil }
        guard status == "200" else { throw TestServer.Failure.startFailed("GET \(key): HTTP \(status)") }
        return try Data(contentsOf: URL(fileURLWithPath: file))
    }

    /// The object's Content-Type, as a HEAD request answers it.
    public func contentType(_ key: String) throws -> String? {
        let head = try signed(["-I", "\(endpoint)/\(bucket)/\(Self.encode(key))"])
        return head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-type:") }
            .map { $0.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces) }
    }

    /// Lets anyone read the object (PutObjectAcl public-read): a public bucket, as a CDN's origin.
    /// Its URL is `endpoint/bucket/key`.
    public func makePublic(_ key: String) throws {
        let file = server.directory.path("acl-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let status = try signed(["-X", "PUT", "-H", "x-amz-acl: public-read", "-o", file, "-w", "%{http_code}",
                                 "\(endpoint)/\(bucket)/\(Self.encode(key))?acl="])
        guard status == "200" else { throw TestServer.Failure.startFailed("PutObjectAcl \(key): HTTP \(status)") }
    }

    /// Every key in the bucket (ListObjectsV2).
    public func keys() throws -> [String] {
        Self.texts(of: "Key", in: try signed(["\(endpoint)/\(bucket)?list-type=2"]))
    }

    /// The keys of multipart uploads started and neither completed nor aborted (ListMultipartUploads).
    public func uploadsInProgress() throws -> [String] {
        Self.texts(of: "Key", in: try signed(["\(endpoint)/\(bucket)?uploads="]))
    }

    private func signed(_ arguments: [String]) throws -> String {
        try Self.curl(["--aws-sigv4", "aws:amz:us-east-1:s3", "--user", "\(accessKeyID):\(secretAccessKey)",
                       "-H", "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"] + arguments)
    }

    // IAM and STS through their query APIs, signed with any key while moto's authentication is off.
    private static func makeUser(_ base: String) throws -> (String, String) {
        let policy = #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}"#
        try call(base, service: "iam", ["--data", "Action=CreateUser&UserName=packfs&Version=2010-05-08", base])
        try call(base, service: "iam", ["--data", "Action=PutUserPolicy&UserName=packfs&PolicyName=all&Version=2010-05-08",
                                        "--data-urlencode", "PolicyDocument=\(policy)", base])
        let created = try call(base, service: "iam", ["--data", "Action=CreateAccessKey&UserName=packfs&Version=2010-05-08", base])
        guard let key = texts(of: "AccessKeyId", in: created).first, let secret = texts(of: "SecretAccessKey", in: created).first else {
            throw TestServer.Failure.startFailed("moto: no access key in \(created)")
        }
        return (key, secret)
    }

    private static func makeRoleCredentials(_ base: String) throws -> [String: String] {
        let trust = #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"*"},"Action":"sts:AssumeRole"}]}"#
        let policy = #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}"#
        try call(base, service: "iam", ["--data", "Action=CreateRole&RoleName=uploader&Version=2010-05-08",
                                        "--data-urlencode", "AssumeRolePolicyDocument=\(trust)", base])
        try call(base, service: "iam", ["--data", "Action=PutRolePolicy&RoleName=uploader&PolicyName=all&Version=2010-05-08",
                                        "--data-urlencode", "PolicyDocument=\(policy)", base])
        let assumed = try call(base, service: "sts", [
            "--data", "Action=AssumeRole&RoleArn=arn:aws:iam::123456789012:role/uploader&RoleSessionName=packfs&Version=2011-06-15", base])
        let values = ["AccessKeyId", "SecretAccessKey", "SessionToken"].compactMap { texts(of: $0, in: assumed).first }
        guard values.count == 3 else { throw TestServer.Failure.startFailed("moto: no credentials in \(assumed)") }
        return ["AWS_ACCESS_KEY_ID": values[0], "AWS_SECRET_ACCESS_KEY": values[1], "AWS_SESSION_TOKEN": values[2]]
    }

    @discardableResult
    private static func call(_ base: String, service: String, _ arguments: [String]) throws -> String {
        try curl(["--aws-sigv4", "aws:amz:us-east-1:\(service)", "--user", "setup:setup"] + arguments)
    }

    private static func curl(_ arguments: [String]) throws -> String {
        let outcome = try Command.runApart("/usr/bin/curl", ["-sS", "--max-time", "30"] + arguments, timeout: 60)
        guard outcome.status == 0 else { throw TestServer.Failure.startFailed("curl \(arguments): \(outcome.stderr)") }
        return outcome.stdout
    }

    private static func texts(of element: String, in xml: String) -> [String] {
        xml.components(separatedBy: "<\(element)>").dropFirst().compactMap { $0.components(separatedBy: "</\(element)>").first }
    }

    /// A key as a URL path (each byte but unreserved ones and `/` percent-encoded).
    public static func encode(_ key: String) -> String {
        key.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~/")) ?? key
    }
}
