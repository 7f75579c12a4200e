import Directory
import JSON
import MailStore

extension JMAPService {
    /// Methods a `mail.send`-only grant may call besides `EmailSubmission/set`: what composing and sending needs and
    /// nothing that reads mail (docs/decisions/0020, like Gmail's `gmail.send`).
    static let composingMethods: Set<String> = ["Core/echo", "Identity/get", "Mailbox/get", "Blob/upload", "Email/set"]

    /// What an `Email/set` that updates or destroys mail needs; also what `EmailSubmission/set`'s implicit
    /// `Email/set` (`onSuccessUpdateEmail`, `onSuccessDestroyEmail`) needs beyond finishing the send
    /// (``finishesSending(_:keywords:_:)``).
    static let changingMailNeeds: MailPermissions = .read

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
        if set["update"].map({ $0 != .null }) == true || set["destroy"].map({ $0 != .null }) == true {
            return changingMailNeeds
        }
        let drafts: JSONValue = .object([("drafts", .bool(true))])
        if let creations = set["create"]?.objectValue, creations.contains(where: { $0.1["mailboxIds"] != drafts }) {
            return .read
        }
        return []
    }

    /// Whether `patch`, an `onSuccessUpdateEmail` patch of an email just submitted whose keywords are `keywords`,
    /// does no more than finish the send: drop `$draft` (`keywords/$draft` null, or `keywords` equal to `keywords`
    /// without it), mark it `$sent` (as Atomic's own send preset does; nothing else reads that keyword) and keep the
    /// email in Sent only (`mailboxIds` of Sent alone, `mailboxIds/<Sent>` true, any other
    /// `mailboxIds/…` null). The rest of what a patch can do (mark it unread or read, move it to the inbox where it
    /// would look received) is an `Email/set` update, which a principal without ``changingMailNeeds`` may not do.
    static func finishesSending(_ patch: [(String, JSONValue)], keywords: Set<String>, _ call: JMAPCall) -> Bool {
        let sent = MailFolder.sent.rawValue
        let removed: (JSONValue) -> Bool = { $0 == .null || $0 == .bool(false) }
        return patch.allSatisfy { path, value in
            if path.lowercased() == "keywords/$draft" { return removed(value) }
            if path.lowercased() == "keywords/$sent" { return value == .bool(true) }
            if path == "keywords" {
                guard let object = value.objectValue, object.allSatisfy({ $0.1 == .bool(true) }) else { return false }
                let finished = keywords.subtracting(["$draft"])
                return [finished, finished.union(["$sent"])].contains(Set(object.map(\.0)))
            }
            if path == "mailboxIds" {
                guard let object = value.objectValue, object.count == 1, let (mailbox, flag) = object.first else {
                    return false
                }
                return flag == .bool(true) && (call.id(mailbox) ?? mailbox) == sent
            }
            guard path.hasPrefix("mailboxIds/") else { return false }
            let mailbox = String(path.dropFirst("mailboxIds/".count))
            return (call.id(mailbox) ?? mailbox) == sent ? value == .bool(true) : removed(value)
        }
    }

    /// What the implicit `Email/set` answers a principal that may send but not change mail.
    static let onlySending = SetError(
        .forbidden,
        description: "This grant may send but not change mail: after a submission it may only drop $draft, mark "
            + "it $sent and keep the email in Sent. Changing or destroying mail needs the \(changingMailNeeds.scope) scope.")

    /// Whether `patch` of the just-submitted email `emailID` only finishes its send.
    func finishesSending(_ emailID: String, _ patch: JSONValue, _ call: JMAPCall) async throws -> Bool {
        guard let pairs = patch.objectValue,
            let message = try await store.message(address: call.account.address, id: emailID)
        else { return false }
        return Self.finishesSending(pairs, keywords: message.summary.allKeywords, call)
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
