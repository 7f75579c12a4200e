/// The encoding of the handler header list written last, kept by the caller for the next response (the server keeps
/// one per event loop). Handlers answer with the same `HTTPHeaders` value again and again (a response built once, a
/// constant `Content-Type`), and writing a list checks each name and value byte by byte.
///
/// The memo keeps the list it encoded, so the identity of the list's storage stands for its content: storage that
/// is still referenced is never reused for another list, and a list that is changed gets storage of its own first.
/// Not `Sendable`: one per event loop.
public final class HTTPHeaderEncodingMemo {
    // Touched only on its loop, and no access overlaps another: without the runtime's exclusivity checks (two per
    // response; see docs/performance.md, "Hot path").
    @exclusivity(unchecked) private var headers = HTTPHeaders()
    @exclusivity(unchecked) private var bytes: [UInt8] = []

    /// An empty memo.
    public init() {}

    /// The encoding of `headers` when it is the list encoded last, nil otherwise.
    func encoding(of headers: HTTPHeaders) -> [UInt8]? {
        headers.sharesStorage(with: self.headers) ? bytes : nil
    }

    /// Encodings longer than this are not kept: long lists carry per-request values (a new token in each answer),
    /// and copying them into the memo for nothing costs more than a hit saves.
    static var maximumLength: Int { 256 }

    /// Keeps `encoded` as the encoding of `headers`, when it is short enough.
    func remember(_ headers: HTTPHeaders, _ encoded: UnsafeBufferPointer<UInt8>) {
        guard encoded.count <= Self.maximumLength else { return }
        self.headers = headers
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: encoded)
    }
}

extension HTTPHeaders {
    /// Whether this list and `other` are one list (copies sharing their fields' storage), not merely equal ones.
    fileprivate func sharesStorage(with other: HTTPHeaders) -> Bool {
        guard !fields.isEmpty, fields.count == other.fields.count else { return false }
        return fields.withUnsafeBufferPointer { $0.baseAddress }
            == other.fields.withUnsafeBufferPointer { $0.baseAddress }
    }
}
