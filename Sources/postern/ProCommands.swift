import ArgumentParser
import PosternApp
import PosternOperations

/// `postern pro create|list|show|set-password`, `pro passkeys remove` and `pro mfa reset`: Pro users are created by the
/// operator, as the hosted service does in its dashboard.
struct Pro: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Create, list and show Pro users of the mailbox API; set their passwords; remove a lost passkey or second factor.",
        subcommands: [Create.self, List.self, Show.self, SetPassword.self, Passkeys.self, MFA.self])

    struct MFA: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mfa", abstract: "Manage a Pro user's second factor (TOTP).", subcommands: [ResetMFA.self])
    }

    struct ResetMFA: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset",
            abstract: "Remove a Pro user's second factor (a lost authenticator app and recovery codes).",
            discussion: """
                Their TOTP secret and recovery codes are deleted; their password, passkeys, tokens and sessions are \
                untouched. They sign in with their password alone (or, when POSTERN_PRO_SECOND_FACTOR requires one, \
                set up a new app at their next sign-in). Recorded on the audit trail as pro.mfa_reset.
                """)
        @OptionGroup var reset: SecondFactorResetOptions

        func run() async throws {
            try await reset.run(holder: "Pro user") {
                try await Operations.resetProSecondFactor(configuration: $0, email: $1, logger: $2)
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a Pro user.")
        @OptionGroup var options: DataOptions
        @Option(help: "The Pro user's email (their login).") var email: String
        @OptionGroup var password: PasswordOptions
        @Option(name: .customLong("max-accounts"), help: "Most mailbox accounts the user may own (default 100).")
        var maxAccounts: Int?
        @Option(name: .customLong("max-domains"), help: "Most custom domains the user may add (default 5).")
        var maxDomains: Int?

        func run() async throws {
            let password = try password.read()
            let (configuration, logger) = try await options.loadWithLogger(.creates)
            Terminal.write(try await Operations.createProUser(
                configuration: configuration, email: email, password: password, maxAccounts: maxAccounts,
                maxDomains: maxDomains, logger: logger))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List Pro users and their account counts.")
        @OptionGroup var options: DataOptions

        func run() async throws {
            try await options.printLines { try await Operations.listProUsers(configuration: $0, logger: $1) }
        }
    }

    struct SetPassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-password",
            abstract: "Set a Pro user's password (at least 6 characters); the tokens it signed in for stop working.")
        @OptionGroup var options: DataOptions
        @Option(help: "The Pro user's email.") var email: String
        @OptionGroup var password: PasswordOptions

        func run() async throws {
            let password = try password.read()
            let (configuration, logger) = try await options.loadWithLogger()
            guard try await Operations.setProUserPassword(
                configuration: configuration, email: email, password: password, logger: logger)
            else { throw CommandFailure("no Pro user has email '\(email)'") }
            Terminal.write("password set for \(email); its earlier sign-ins ended")
            let ways = try await Operations.otherWaysIn(
                configuration: configuration, email: email, owner: false, logger: logger) ?? []
            writeOtherWays(ways, remove: "postern pro passkeys remove --email \(email) --id ID")
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a Pro user: password, proven email, passkeys (with the ids `pro passkeys remove` takes).")
        @OptionGroup var show: ShowOptions

        func run() async throws {
            try await show.run(holder: "Pro user") {
                try await Operations.showProUser(configuration: $0, email: $1, logger: $2)
            }
        }
    }

    struct Passkeys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Manage a Pro user's passkeys.", subcommands: [RemovePasskey.self])
    }

    struct RemovePasskey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a Pro user's passkey (a lost device): it signs nobody in from now on.",
            discussion:
                "The id is the one `pro show` lists. The Pro user's password is untouched; `pro set-password` "
                + "sets a new one.")
        @OptionGroup var removal: PasskeyRemovalOptions

        func run() async throws {
            try await removal.run(holder: "Pro user") {
                try await Operations.removeProUserPasskey(configuration: $0, email: $1, id: $2, logger: $3)
            }
        }
    }
}
