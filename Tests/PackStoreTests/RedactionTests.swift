import Basics
import PackStore
import XCTest

/// `Redaction`: every secret form the contract names is masked, and nothing else changes.
final class RedactionTests: XCTestCase {
    func testEachSecretParameterIsMasked() {
        for name in ["access_token", "token", "key", "api_key", "apikey", "signature", "sig", "Signature", "Policy",
                     "Key-Pair-Id", "X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token", "x-amz-date"] {
            let url = "https://tiles.example/a/{z}.pbf?v=2&\(name)=s3cr3tValue&fmt=pbf"
            XCTAssertEqual(Redaction.url(url), "https://tiles.example/a/{z}.pbf?v=2&\(name)=***&fmt=pbf", name)
        }
    }

    func testNamesAreMatchedInAnyCase() {
        XCTAssertEqual(Redaction.url("http://h/s.json?ACCESS_TOKEN=pk.abc"), "http://h/s.json?ACCESS_TOKEN=***")
        XCTAssertEqual(Redaction.url("http://h/s.json?Api_Key=abc#frag"), "http://h/s.json?Api_Key=***#frag")
        XCTAssertEqual(Redaction.url("http://h/s.json?x-AMZ-SignedHeaders=host"), "http://h/s.json?x-AMZ-SignedHeaders=***")
    }

    func testOtherParametersAndLookalikesStay() {
        for url in ["http://h/s.json?monkey=1&keys=2&tokenizer=3", "http://h/key/token/sig.json", "http://h/?key="] {
            XCTAssertEqual(Redaction.url(url), url)
        }
    }

    func testUserInfoIsMasked() {
        XCTAssertEqual(Redaction.url("https://alice:hunter2@example.com/p.mbtiles"), "https://***@example.com/p.mbtiles")
        XCTAssertEqual(Redaction.url("http://token@127.0.0.1:8080/x?q=1"), "http://***@127.0.0.1:8080/x?q=1")
        XCTAssertEqual(Redaction.url("http://example.com/a@b"), "http://example.com/a@b", "an @ in the path is no user-info")
    }

    func testSeveralURLsInOneText() {
        let text = "refused redirect from https://u:p@a.example/s.json?key=K1 to http://b.example/t?access_token=T2&z=1: host"
        XCTAssertEqual(
            Redaction.text(text), "refused redirect from https://***@a.example/s.json?key=*** to http://b.example/t?access_token=***&z=1: host")
    }

    func testEncodedValuesAndEncodedURLs() {
        XCTAssertEqual(Redaction.url("http://h/t?token=pk%2Eab%3Dc&x=1"), "http://h/t?token=***&x=1")
        XCTAssertEqual(Redaction.url("http://h/t?access%5Ftoken=abc"), "http://h/t?access%5Ftoken=***")
        // A URL carried percent-encoded in another's query.
        XCTAssertEqual(
            Redaction.url("http://proxy/?url=https%3A%2F%2Fh%2Ft%3Fsig%3Dabc%26z%3D3"), "http://proxy/?url=https%3A%2F%2Fh%2Ft%3Fsig%3D***%26z%3D3")
    }

    func testTextWithoutAURLIsUntouched() {
        for text in ["", "pack helsinki: HTTP 404", "a = b, c: d; 100% done", "ключ=значение", "time: 12:30 @ home"] {
            XCTAssertEqual(Redaction.text(text), text)
        }
    }

    func testHeadersAndJSONQuotedURLs() {
        XCTAssertEqual(Redaction.text("Authorization: AWS4-HMAC-SHA256 Credential=AK/x, Signature=ff\nnext"), "Authorization: ***\nnext")
        XCTAssertEqual(
            Redaction.text(#"{"url":"http://h/t.json?key=abc","error":"HTTP 403 for http://h/1.pbf?token=q"}"#),
            #"{"url":"http://h/t.json?key=***","error":"HTTP 403 for http://h/1.pbf?token=***"}"#)
    }

    func testLiteralSecretsAreMaskedAnywhere() {
        Redaction.hide(literal: "pk.literal-secret-4242")
        Redaction.hide(literal: "ab")  // too short to hide: ordinary words would vanish
        XCTAssertEqual(Redaction.text("rewrote to /pk.literal-secret-4242/tiles (ab)"), "rewrote to /***/tiles (ab)")
    }
}
