/// The header hash input of a DKIM signature (RFC 6376 section 3.7), shared by the signer and the verifier so that
/// both build it one way. Pure.
enum DKIMHeaderHash {
    /// Each signed name's last unused instance, bottom up (a name signed more often than present adds nothing: that
    /// is how oversigning refuses an added field), each canonicalized with CRLF; then the DKIM-Signature field with
    /// its `b=` value empty, canonicalized, without the final CRLF.
    static func input(
        names: [String], headers: MessageHeaders, signatureField: [UInt8], mode: DKIMCanonicalization
    ) -> [UInt8] {
        var used: [String: Int] = [:]
        var input: [UInt8] = []
        for name in names {
            let instances = headers.fields(named: name)
            let skip = used[name, default: 0]
            used[name] = skip + 1
            guard skip < instances.count else { continue }
            input += mode.header(instances[instances.count - 1 - skip].raw)
        }
        input += mode.header(signatureField).dropLast(2)
        return input
    }
}
