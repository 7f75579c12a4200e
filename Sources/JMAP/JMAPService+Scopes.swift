import Directory
import JSON

extension JMAPService {
    /// Methods a `mail.send`-only grant may call besides `EmailSubmission/set`: what composing and sending needs and
    /// nothing that reads mail (README "OAuth for apps", decision 7, like Gmail's `gmail.send`).
    static let composingMethods: Set<String> = ["Core/echo", "Identity/get", "Mailbox/get", "Blob/upload", "Email/set"]

    /// What method `name` with `arguments` needs of the principal (`api-docs/oauth-mcp-contract.md` 1.9): `send` for
    /// `EmailSubmission/set`; nothing more than either scope for the composing methods (an `Email/set` that only
    /// creates drafts); `read` for every other method, and for an `Email/set` that updates, destroys, or creates a
    /// message anywhere but in Drafts (a `mail.send` grant must not plant mail in the inbox).
    static func required(_ name: String, _ arguments: [(String, JSONValue)]) -> MailPermissions {
        if name == "EmailSubmission/set" { return .send }
        guard composingMethods.contains(name) else { return .read }
        guard name == "Email/set" else { return [] }
        // Scopes are checked before result references are resolved: a `#create`, `#update` or `#destroy` fed by an
        // earlier call (`Core/echo` echoes anything) could name any of them, so each needs mail.read.
        if arguments.contains(where: { ["#create", "#update", "#destroy"].contains($0.0) }) { return .read }
        let set = JSONValue.object(arguments)
        if set["update"].map({ $0 != .null }) == true || set["destroy"].map({ $0 != .null }) == true { return .read }
        let drafts: JSONValue = .object([("drafts", .bool(true))])
        if let creations = set["create"]?.objectValue, creations.contains(where: { $0.1["mailboxIds"] != drafts }) {
            return .read
        }
        return []
    }

    /// Refuses the whole request before any method runs when one of `invocations` needs what `account` lacks, so that
    /// nothing of it happens.
    /// - Throws: ``AuthenticationRefusal`` `.insufficientScope` naming the missing scope (403).
    static func checkScopes(_ invocations: [(String, [(String, JSONValue)], String)], _ account: JMAPAccount)
        throws(AuthenticationRefusal)
    {
        guard account.permissions != .all else { return }
        for (name, arguments, _) in invocations where methods[name] != nil {
            let missing = required(name, arguments).subtracting(account.permissions)
            if !missing.isEmpty {
                throw AuthenticationRefusal(
                    .insufficientScope(required: missing),
                    "\(name) needs the \(missing.scope) scope, which this grant lacks; authorize again asking for it.")
            }
        }
    }
}
