import JSON

extension JMAPService {
    /// Every method this server has, each once: its name, the capability `using` must name for it, what it does.
    static let methods: [String: JMAPMethod] = {
        let mail = Capability.mail, submission = Capability.submission, blob = Capability.blob
        let list: [(String, JMAPMethod)] = [
            ("Core/echo", JMAPMethod(Capability.core, onAccount: false) { _, arguments, _ in
                [("Core/echo", .object(arguments.pairs))]
            }),
            ("Mailbox/get", .single("Mailbox/get", mail) { try await $0.mailboxGet($1, $2) }),
            ("Mailbox/query", .single("Mailbox/query", mail) { try await $0.mailboxQuery($1, $2) }),
            ("Mailbox/set", .single("Mailbox/set", mail) { try await $0.mailboxSet($1, $2) }),
            ("Mailbox/changes", .single("Mailbox/changes", mail) { try await $0.changes(.mailbox, $1, $2) }),
            ("Mailbox/queryChanges", .noChangeLog(mail, "Mailbox/query")),
            ("Email/get", .single("Email/get", mail) { try await $0.emailGet($1, $2) }),
            ("Email/query", .single("Email/query", mail) { try await $0.emailQuery($1, $2) }),
            ("Email/set", .single("Email/set", mail) { try await $0.emailSet($1, $2) }),
            ("Email/copy", .single("Email/copy", mail) { try await $0.emailCopy($1, $2) }),
            ("Email/import", .single("Email/import", mail) { try await $0.emailImport($1, $2) }),
            ("Email/changes", .single("Email/changes", mail) { try await $0.changes(.email, $1, $2) }),
            ("Email/queryChanges", .single("Email/queryChanges", mail) { try await $0.emailQueryChanges($1, $2) }),
            ("Thread/get", .single("Thread/get", mail) { try await $0.threadGet($1, $2) }),
            ("Thread/changes", .single("Thread/changes", mail) { try await $0.changes(.thread, $1, $2) }),
            ("Identity/get", .single("Identity/get", submission) { try await $0.identityGet($1, $2) }),
            ("Identity/changes", .single("Identity/changes", submission) { try await $0.identityChanges($1, $2) }),
            ("EmailSubmission/set", JMAPMethod(submission) { try await $0.submissionSet($1, $2) }),
            ("EmailSubmission/get", .single("EmailSubmission/get", submission) { try await $0.submissionGet($1, $2) }),
            ("EmailSubmission/changes", .single("EmailSubmission/changes", submission) {
                try await $0.submissionChanges($1, $2)
            }),
            ("EmailSubmission/query", .single("EmailSubmission/query", submission) {
                try await $0.submissionQuery($1, $2)
            }),
            ("EmailSubmission/queryChanges", .noChangeLog(submission, "EmailSubmission/query")),
            ("Blob/upload", .single("Blob/upload", blob) { try await $0.blobUpload($1, $2) }),
            ("Blob/get", .single("Blob/get", blob) { try await $0.blobGet($1, $2) }),
        ]
        return Dictionary(uniqueKeysWithValues: list)
    }()

    /// Runs one method; returns its response(s).
    /// - Throws: `MethodError` `unknownMethod` for a method this server lacks or whose capability `using` does not
    ///   name; the method's own errors.
    func perform(_ name: String, _ arguments: JMAPArguments, _ call: JMAPCall) async throws -> [(String, JSONValue)] {
        guard let method = Self.methods[name], call.using.contains(method.capability) else {
            throw MethodError.unknownMethod(name)
        }
        if method.onAccount { try arguments.requireAccount(call.account) }
        return try await method.body(self, arguments, call)
    }
}
