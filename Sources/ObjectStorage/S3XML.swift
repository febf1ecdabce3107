import FoundationEssentials

/// The few bits of S3's XML an upload reads and writes. S3's answers are flat and machine-made;
/// an element's text is found by name (`<UploadId>...</UploadId>`) and unescaped, no parser needed.
enum S3XML {
    /// The text of the first `<name>` element of `body`, unescaped; nil when there is none.
    static func text(of name: String, in body: Data) -> String? {
        let xml = String(decoding: body, as: UTF8.self)
        guard let open = xml.firstRange(of: "<\(name)>"), let close = xml[open.upperBound...].firstRange(of: "</\(name)>") else {
            return nil
        }
        return unescape(String(xml[open.upperBound..<close.lowerBound]))
    }

    /// S3's error code and message (`<Error><Code>...`); nil when the body holds no error.
    static func error(in body: Data) -> (code: String, message: String)? {
        guard text(of: "Error", in: body) != nil, let code = text(of: "Code", in: body) else { return nil }
        return (code, text(of: "Message", in: body) ?? "")
    }

    /// CompleteMultipartUpload's body: each part's number and ETag, in order.
    static func completion(etags: [String]) -> Data {
        var xml = "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        for (index, etag) in etags.enumerated() {
            xml += "<Part><PartNumber>\(index + 1)</PartNumber><ETag>\(escape(etag))</ETag></Part>"
        }
        xml += "</CompleteMultipartUpload>"
        return Data(xml.utf8)
    }

    static func escape(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;")
            .replacing(">", with: "&gt;").replacing("\"", with: "&quot;")
    }

    static func unescape(_ text: String) -> String {
        text.replacing("&quot;", with: "\"").replacing("&apos;", with: "'")
            .replacing("&lt;", with: "<").replacing("&gt;", with: ">")
            .replacing("&#34;", with: "\"").replacing("&amp;", with: "&")
    }
}
