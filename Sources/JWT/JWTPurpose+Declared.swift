import AuthCrypto
import JSON

extension JWTPurpose {
    /// Whether `token`'s header declares this purpose's `typ` (``tokenType``: `at+jwt` also as `application/at+jwt`,
    /// any case): how a route that takes several kinds of bearer picks the one to verify it as. Only a routing hint,
    /// read without any signature check: the token is verified afterwards as everywhere.
    public func isDeclared(by token: String) -> Bool {
        guard token.utf8.count <= JWTKeySet.maximumTokenLength,
            let header = token.split(separator: ".", omittingEmptySubsequences: false).first, header.utf8.count <= 1024,
            let decoded = Base64URL.decode(String(header)),
            let typ = (try? JSONValue.parse(decoded, limits: .init(maximumDepth: 4)))?["typ"]?.stringValue
        else { return false }
        return JWTKeySet.isType(typ, tokenType)
    }
}
