import COpenSSL

extension EVPKey {
    /// A value of ``fromData(algorithm:_:)``'s parameters.
    enum Parameter {
        /// A UTF-8 string (`group`).
        case utf8(String)
        /// An octet string (`pub`).
        case octets([UInt8])
        /// An unsigned big-endian integer (`n`, `e`).
        case unsigned([UInt8])
    }

    /// A public key of `algorithm` (`RSA`, `EC`) made from `parameters` (OpenSSL's names: `n` and `e`; `group` and
    /// `pub`) through `EVP_PKEY_fromdata`.
    ///
    /// OpenSSL's parameter builder keeps pointers, not copies: the names stay referenced by the built parameters and
    /// the values until they are built. A Swift string passed as a C string lives only for one call (a short one is a
    /// copy on the stack), so every name and value is copied into memory this function owns until the key is made.
    /// - Throws: `CryptoError` `.invalidKey` when OpenSSL refuses them.
    static func fromData(algorithm: String, _ parameters: [(String, Parameter)]) throws(CryptoError) -> EVPKey {
        var buffers: [UnsafeMutableRawBufferPointer] = []
        var numbers: [OpaquePointer] = []
        defer {
            for buffer in buffers { buffer.deallocate() }
            for number in numbers { BN_free(number) }
        }
        /// A copy of `bytes` in owned memory, with a terminating zero (so that text is a C string).
        func owned(_ bytes: [UInt8]) -> UnsafeMutableRawPointer {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count + 1, alignment: 1)
            buffer.copyBytes(from: bytes + [0])
            buffers.append(buffer)
            return buffer.baseAddress!
        }
        guard let builder = OSSL_PARAM_BLD_new() else { throw openSSLError(.invalidKey, "OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        for (name, value) in parameters {
            let key = owned(Array(name.utf8)).assumingMemoryBound(to: CChar.self)
            let pushed: Bool
            switch value {
            case .utf8(let text):
                let copy = owned(Array(text.utf8)).assumingMemoryBound(to: CChar.self)
                pushed = OSSL_PARAM_BLD_push_utf8_string(builder, key, copy, 0) == 1
            case .octets(let bytes):
                pushed = OSSL_PARAM_BLD_push_octet_string(builder, key, owned(bytes), bytes.count) == 1
            case .unsigned(let bytes):
                guard let number = BN_bin2bn(bytes, Int32(bytes.count), nil) else {
                    throw openSSLError(.invalidKey, "BN_bin2bn")
                }
                numbers.append(number)
                pushed = OSSL_PARAM_BLD_push_BN(builder, key, number) == 1
            }
            guard pushed else { throw openSSLError(.invalidKey, "building the \(algorithm) key's parameters") }
        }
        guard let built = OSSL_PARAM_BLD_to_param(builder) else {
            throw openSSLError(.invalidKey, "building the \(algorithm) key's parameters")
        }
        defer { OSSL_PARAM_free(built) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, algorithm, nil) else {
            throw openSSLError(.invalidKey, "EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1,
            EVP_PKEY_fromdata(context, &key, postern_EVP_PKEY_PUBLIC_KEY(), built) == 1, let key
        else { throw openSSLError(.invalidKey, "loading the \(algorithm) public key") }
        return EVPKey(taking: key)
    }
}
