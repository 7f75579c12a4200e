// Convenience readers over a request: query items, cookies, bearer tokens, content types, form bodies.

extension HTTPRequest {
    /// The first query item named `name`, percent-decoded with `+` as a space; nil when absent.
    ///
    /// An item without `=` (`?flag`) has the empty string as its value.
    public func queryItem(_ name: String) -> String? {
        guard let query else { return nil }
        return HTTPRequest.firstField(named: name, in: Substring(query))
    }

    /// Every query item, decoded, in order.
    public var queryItems: [(name: String, value: String)] {
        guard let query else { return [] }
        return HTTPRequest.urlEncodedFields(Substring(query))
    }

    /// The value of the cookie named `name` from the `Cookie` header(s), without surrounding quotes.
    ///
    /// Cookie names are case-sensitive; values are returned as sent (no percent-decoding).
    public func cookie(_ name: String) -> String? {
        for header in headers.values("Cookie") {
            for pair in header.split(separator: ";", omittingEmptySubsequences: true) {
                let trimmed = ASCII.trimmed(pair)
                guard let equals = trimmed.firstIndex(of: "=") else { continue }
                guard ASCII.trimmed(trimmed[..<equals]) == name else { continue }
                var value = ASCII.trimmed(trimmed[trimmed.index(after: equals)...])
                if value.count >= 2, value.first == "\"", value.last == "\"" {
                    value = value.dropFirst().dropLast()
                }
                return String(value)
            }
        }
        return nil
    }

    /// The token of an `Authorization: Bearer <token>` header (scheme matched ignoring case).
    ///
    /// Nil when the header is absent, uses another scheme, or carries an empty token.
    public var bearerToken: String? {
        guard let authorization = headers["Authorization"] else { return nil }
        let trimmed = ASCII.trimmed(authorization)
        guard trimmed.utf8.count > 7 else { return nil }
        let scheme = trimmed.prefix(6)
        guard ASCII.equalsIgnoringCase(String(scheme), "Bearer") else { return nil }
        let afterScheme = trimmed.dropFirst(6)
        guard let separator = afterScheme.first, separator == " " || separator == "\t" else { return nil }
        let token = ASCII.trimmed(afterScheme)
        return token.isEmpty ? nil : String(token)
    }

    /// The media type of `Content-Type`, lowercased, without parameters; nil when absent.
    public var mediaType: String? {
        guard let contentType = headers["Content-Type"] else { return nil }
        let type = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return ASCII.trimmed(type).lowercased()
    }

    /// Whether `Content-Type` is `application/json` (parameters such as `charset` ignored).
    public var contentTypeIsJSON: Bool { mediaType == "application/json" }

    /// Whether `Content-Type` is `application/x-www-form-urlencoded` (parameters ignored).
    public var contentTypeIsForm: Bool { mediaType == "application/x-www-form-urlencoded" }

    /// The body decoded as `application/x-www-form-urlencoded`; the first value of a name wins.
    ///
    /// Decodes regardless of `Content-Type`; check `contentTypeIsForm` first when it matters.
    public func formFields() -> [String: String] {
        var result: [String: String] = [:]
        for field in HTTPRequest.urlEncodedFields(body) where result[field.name] == nil {
            result[field.name] = field.value
        }
        return result
    }

    /// The decoded items of a query string `query` (`a=1&b=2`, `+` as a space), in order.
    public static func items(ofQuery query: String) -> [(name: String, value: String)] {
        urlEncodedFields(Substring(query))
    }

    /// Every decoded value of the form field `name`, in order: a group of checkboxes sends one per ticked box.
    public func formValues(_ name: String) -> [String] {
        HTTPRequest.urlEncodedFields(body).filter { $0.name == name }
            .map(\.value)
    }

    /// Whether the `Accept` header lists `application/json` (with a non-zero quality).
    public var acceptsJSON: Bool {
        for header in headers.values("Accept") {
            for range in header.split(separator: ",") {
                let parts = range.split(separator: ";")
                guard let type = parts.first, ASCII.trimmed(type).lowercased() == "application/json" else { continue }
                let zeroQuality = parts.dropFirst().contains { parameter in
                    let p = ASCII.trimmed(parameter).lowercased().replacingOccurrences(" ", "")
                    return p == "q=0" || p == "q=0.0" || p == "q=0.00" || p == "q=0.000"
                }
                if !zeroQuality { return true }
            }
        }
        return false
    }

    /// Splits `a=1&b=2` into decoded pairs.
    static func urlEncodedFields(_ text: Substring) -> [(name: String, value: String)] {
        urlEncodedFields(text.utf8)
    }

    /// The decoded fields of `a=1&b=2` bytes, split as bytes: `&` and `=` are ASCII, never inside a UTF-8 sequence,
    /// and each name and value is made a `String` once (a token form field is hundreds of bytes: splitting its
    /// `String` by characters cost 5% of an introspection).
    static func urlEncodedFields<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        for pair in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
                fields.append(
                    (
                        name: PercentDecoding.decode(bytes: pair[..<equals], plusAsSpace: true),
                        value: PercentDecoding.decode(bytes: pair[pair.index(after: equals)...], plusAsSpace: true)
                    ))
            } else {
                fields.append((name: PercentDecoding.decode(bytes: pair, plusAsSpace: true), value: ""))
            }
        }
        return fields
    }

    /// The first decoded value named `name` in `a=1&b=2` text.
    static func firstField(named name: String, in text: Substring) -> String? {
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: "=")
            let rawName = equals.map { pair[..<$0] } ?? pair
            guard PercentDecoding.decode(rawName, plusAsSpace: true) == name else { continue }
            guard let equals else { return "" }
            return PercentDecoding.decode(pair[pair.index(after: equals)...], plusAsSpace: true)
        }
        return nil
    }
}

extension StringProtocol {
    /// Replaces every occurrence of a single-character string; avoids Foundation.
    fileprivate func replacingOccurrences(_ target: Character, _ replacement: String) -> String {
        var out = ""
        for character in self {
            if character == target { out += replacement } else { out.append(character) }
        }
        return out
    }
}
