/// A failure that callers switch on by its code, with a reason safe to log.
///
/// Each library names its own codes and makes its error type from them (`typealias CryptoError =
/// CodedError<CryptoErrorCode>`), so a `catch let error as CryptoError` still tells the libraries apart. The reason
/// is written by the library that throws: it names the operation, file or setting, never secrets, tokens or key
/// material.
public struct CodedError<Kind: RawRepresentable & Sendable & Hashable>: Error, Sendable, Equatable,
    CustomStringConvertible
where Kind.RawValue == String {
    /// The library's codes (`CryptoError.Code`).
    public typealias Code = Kind

    /// What went wrong.
    public let code: Code
    /// A short, secret-free explanation.
    public let reason: String

    /// Creates an error; `reason` must not contain secrets.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// "<code>: <reason>".
    public var description: String { "\(code.rawValue): \(reason)" }
}
