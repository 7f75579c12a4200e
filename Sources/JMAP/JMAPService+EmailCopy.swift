import JSON

extension JMAPService {
    /// `Email/copy` (RFC 8621 §4.7, the `/copy` of RFC 8620 §5.4): copies Emails from `fromAccountId` into
    /// `accountId`, which RFC 8620 says MUST be a different account. A session here holds one account (the token's), so
    /// no call can name two the session has: the same account twice is `invalidArguments` (a move within an account is
    /// `Email/set`'s `mailboxIds`), and any other `fromAccountId` is `fromAccountNotFound`, checked after the arguments'
    /// types, as every method checks those first.
    /// - Throws: `MethodError` `invalidArguments` or `fromAccountNotFound`; `accountNotFound` comes earlier, from
    ///   ``JMAPArguments/requireAccount(_:)``.
    func emailCopy(_ arguments: JMAPArguments, _ call: JMAPCall) async throws -> JSONValue {
        guard let from = try arguments.string("fromAccountId") else {
            throw MethodError.invalidArguments("`fromAccountId` is required: the account to copy from.")
        }
        guard try arguments.object("create") != nil else {
            throw MethodError.invalidArguments("`create` is required: creation ids mapped to Email objects.")
        }
        _ = try arguments.string("ifFromInState")
        _ = try arguments.string("ifInState")
        _ = try arguments.string("destroyFromIfInState")
        _ = try arguments.bool("onSuccessDestroyOriginal", default: false)
        guard from != call.account.id else {
            throw MethodError.invalidArguments(
                "`fromAccountId` must differ from `accountId`: move an Email within an account with Email/set.")
        }
        throw MethodError("fromAccountNotFound", "The fromAccountId is not an account of this token.")
    }
}
