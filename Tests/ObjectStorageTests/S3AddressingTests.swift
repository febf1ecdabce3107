import Basics
import Foundation
import XCTest

@testable import ObjectStorage

/// s3:// URLs, the environment's settings, and the URLs requests go to.
final class S3AddressingTests: XCTestCase {
    func testObjectURLs() throws {
        let object = try ObjectLocation(url: "s3://my-packs/maps/helsinki.pmtiles")
        XCTAssertEqual(object, ObjectLocation(bucket: "my-packs", key: "maps/helsinki.pmtiles"))
        XCTAssertEqual(object.name, "helsinki.pmtiles")
        XCTAssertEqual(object.sibling(named: "helsinki.land.pmtiles").description, "s3://my-packs/maps/helsinki.land.pmtiles")
        XCTAssertEqual(try ObjectLocation(url: "s3://b.c-d/k").key, "k")
        let refused: [(String, String)] = [
            ("https://b/k", "it does not start with s3://"), ("s3://bucket", "no key after the bucket"),
            ("s3://bucket/", "no key after the bucket"), ("s3:///key", "no bucket"),
            ("s3://Bucket/key", "no bucket name"), ("s3://ab/key", "no bucket name"), ("s3://-ab/key", "no bucket name"),
            ("s3://bucket/a\nb", "control character"),
        ]
        for (url, why) in refused {
            XCTAssertThrowsError(try ObjectLocation(url: url), url) { error in
                XCTAssertTrue("\(error)".contains(why), "\(url): \(error)")
            }
        }
    }

    func testTheEnvironmentAndWhatOverridesIt() throws {
        let environment = [
            "AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": "",
            "AWS_DEFAULT_REGION": "eu-north-1", "AWS_ENDPOINT_URL": "http://127.0.0.1:9000",
        ]
        let configuration = try S3Configuration.from(environment: environment)
        XCTAssertEqual(configuration, S3Configuration(
            accessKeyID: "AKID", secretAccessKey: "secret", region: "eu-north-1", endpoint: "http://127.0.0.1:9000"))
        let overridden = try S3Configuration.from(environment: environment, region: "us-west-2", endpoint: "https://s3.example")
        XCTAssertEqual(overridden.region, "us-west-2")
        XCTAssertEqual(overridden.endpoint, "https://s3.example")
        XCTAssertEqual(try S3Configuration.from(environment: ["AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b"]).region, "us-east-1")
        XCTAssertThrowsError(try S3Configuration.from(environment: ["AWS_ACCESS_KEY_ID": "AKID"])) { error in
            XCTAssertTrue("\(error)".contains("AWS_SECRET_ACCESS_KEY"), "\(error)")
        }
        for endpoint in ["ftp://host", "http://", "127.0.0.1:9000", "http://host/?x"] {
            XCTAssertThrowsError(try S3Configuration.from(environment: environment, endpoint: endpoint), endpoint)
        }
    }

    /// Path-style under an endpoint, virtual-hosted on AWS; keys encoded as SigV4 canonicalizes
    /// them (libcurl 7.88 signs the path as written).
    func testRequestURLs() throws {
        let object = ObjectLocation(bucket: "packs", key: "maps/a b+c/ä~_.pmtiles")
        var configuration = S3Configuration(accessKeyID: "a", secretAccessKey: "b", region: "eu-west-1")
        XCTAssertEqual(configuration.url(of: object, query: "uploads="),
                       "https://packs.s3.eu-west-1.amazonaws.com/maps/a%20b%2Bc/%C3%A4~_.pmtiles?uploads=")
        configuration.endpoint = "http://127.0.0.1:9000/"
        XCTAssertEqual(configuration.url(of: object, query: ""), "http://127.0.0.1:9000/packs/maps/a%20b%2Bc/%C3%A4~_.pmtiles")
        XCTAssertEqual(S3Encoding.component("a/b=c+d"), "a%2Fb%3Dc%2Bd")
    }

    func testPartSizesAndS3sXML() {
        XCTAssertEqual(MultipartUpload.partSize(for: 80 << 20, asked: 8 << 20), 8 << 20)
        XCTAssertEqual(MultipartUpload.partSize(for: 100_000 << 20, asked: 8 << 20), 10 << 20, "at most 10,000 parts, whole MiB")
        let created = Data("<?xml version=\"1.0\"?><InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><UploadId>a&amp;b</UploadId></InitiateMultipartUploadResult>".utf8)
        XCTAssertEqual(S3XML.text(of: "UploadId", in: created), "a&b")
        XCTAssertNil(S3XML.error(in: created))
        let failed = Data("<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message></Error>".utf8)
        XCTAssertEqual(S3XML.error(in: failed)?.code, "NoSuchBucket")
        XCTAssertEqual(String(decoding: S3XML.completion(etags: ["\"e1\"", "\"e2\""]), as: UTF8.self),
                       "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Part><PartNumber>1</PartNumber>"
                        + "<ETag>&quot;e1&quot;</ETag></Part><Part><PartNumber>2</PartNumber><ETag>&quot;e2&quot;</ETag></Part></CompleteMultipartUpload>")
        XCTAssertTrue(RetryPolicy.retryable(status: 503, code: "SlowDown"))
        XCTAssertFalse(RetryPolicy.retryable(status: 403, code: "SignatureDoesNotMatch"))
        // Equal jitter: half of the doubled delay fixed, half random.
        XCTAssertTrue((1...2).contains(RetryPolicy.upload.delay(afterAttempt: 3)))
        XCTAssertEqual(RetryPolicy.upload.maxAttempts, 5)
    }

    /// A part size past S3's 5 GiB (here Int.max, with a minimum that allows it) is refused
    /// before the file is read or anything is sent: the part count's `size + partSize - 1`
    /// overflowed and trapped. So is a part size of 0 (a minimum of 0 let it through), which
    /// divided by zero for an empty file.
    func testAPartSizePastS3sLargestOrOfNothingIsRefusedBeforeAnythingIsSent() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("packfs-part-\(getpid()).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        for (size, minimum, fileBytes) in [(Int.max, 1, 10), (0, 0, 0)] {
            try Data(count: fileBytes).write(to: file)
            var options = MultipartUpload.Options()
            options.partSize = size
            options.minimumPartSize = minimum
            let upload = MultipartUpload(
                file: file.path, to: try ObjectLocation(url: "s3://packs/x.pmtiles"), contentType: "application/octet-stream",
                configuration: S3Configuration(accessKeyID: "AKID", secretAccessKey: "secret", endpoint: "http://127.0.0.1:9"),
                options: options)
            XCTAssertThrowsError(try upload.run()) { error in
                XCTAssertEqual(error as? ObjectStorageError, .configuration(
                    "a part size of \(size) bytes is outside 1 byte to 5 GiB (S3's largest part)"))
            }
        }
    }
}
