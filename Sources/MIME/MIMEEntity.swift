/// One MIME entity: its header fields and its body, still encoded.
struct MIMEEntity {
    var headers: [MailHeader]
    var body: ArraySlice<UInt8>

    /// Reads the header block of `bytes` byte-fed, and takes the rest as the body.
    init(_ bytes: ArraySlice<UInt8>, limits: MIMELimits) throws(MIMEError) {
        var parser = MIMEHeaderParser(limits: limits)
        let used = try parser.feed(bytes)
        if !parser.isComplete { try parser.finish() }
        headers = parser.fields.map { MailHeader(name: $0.name, value: Self.text($0.value)) }
        body = bytes.dropFirst(used)
    }

    /// The first field named `name` (case-insensitive), raw: encoded words still encoded.
    func field(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// `Content-Type`, `text/plain` when absent (RFC 2045 5.2).
    var contentType: HeaderParameters {
        let type = HeaderParameters(field("Content-Type") ?? "text/plain")
        return type.value.contains("/") ? type : HeaderParameters("text/plain")
    }

    var disposition: HeaderParameters? { field("Content-Disposition").map(HeaderParameters.init) }

    /// The decoded body bytes.
    var decodedBody: [UInt8] { TransferEncodings.decode(body, encoding: field("Content-Transfer-Encoding")) }

    /// Header bytes as text: UTF-8 when they are (8-bit headers are, these days), else ISO-8859-1; unfolded
    /// values keep their inner spaces but lose leading and trailing ones.
    private static func text(_ bytes: [UInt8]) -> String {
        let text = String(validating: bytes, as: UTF8.self) ?? String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        return text.trimmingSpaces()
    }
}

