import COpenSSL

/// Reads and clears OpenSSL's thread-local error queue (also for the targets that call libssl themselves).
///
/// Returns the text of the most recent error ("error:1E08010C:DECODER routines::unsupported"), or a
/// fallback when the queue is empty. OpenSSL's reason strings describe the failure, never the data.
public func drainOpenSSLErrors(fallback: String) -> String {
    var last: UInt = 0
    while true {
        let code = ERR_get_error()
        if code == 0 { break }
        last = code
    }
    guard last != 0 else { return fallback }
    var buffer = [CChar](repeating: 0, count: 256)
    ERR_error_string_n(last, &buffer, buffer.count)
    let end = buffer.firstIndex(of: 0) ?? buffer.count
    return String(decoding: buffer[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Builds a `CryptoError` from the OpenSSL error queue for `operation`.
func openSSLError(_ code: CryptoError.Code, _ operation: String) -> CryptoError {
    CryptoError(code, "\(operation): \(drainOpenSSLErrors(fallback: "unknown OpenSSL error"))")
}
