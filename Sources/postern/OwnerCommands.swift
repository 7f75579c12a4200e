import ArgumentParser
import Owners
import PosternApp
import PosternOperations

/// `postern owner create|list|show|approve|set-password|remove`, `owner passkeys remove` and `owner mfa reset`: the people who sign in to the owner pages and authorize
/// apps (OAuth).
struct OwnerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "owner",
        abstract: "Create, list and remove owners (people who hold inboxes and authorize apps); set their passwords.",
        subcommands: [
            Create.self, List.self, Show.self, Approve.self, SetPassword.self, Remove.self, Passkeys.self, MFA.self,
            OwnerAppPasswordCommand.self,
        ])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an owner who signs in with email and password.")
        @OptionGroup var options: DataOptions
        @Option(help: "The owner's email (their sign-in).") var email: String
        @OptionGroup var password: PasswordOptions

        func run() async throws {
            let password = try password.read()
            let (configuration, logger) = try await options.loadWithLogger(.creates)
            do {
                Terminal.write(try await Operations.createOwner(
                    configuration: configuration, email: email, password: password, logger: logger))
            } catch let error as OwnerError {
                throw ownerValidationError(error, email: email)
            }
        }
    }

    struct Approve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Approve an owner who signed up: you answer for them, and their inboxes may send outside.",
            discussion: """
                With POSTERN_OUTBOUND_SENDERS=owned, only the inboxes of owners you made (owner create) or approved \
                send mail to other domains; a self-registered owner's outside mail stays in the outbox until then. \
                --withdraw takes the approval back.
                """)
        @OptionGroup var options: DataOptions
        @Option(help: "The owner's email.") var email: String
        @Flag(help: "Withdraw the approval instead: their inboxes' outside mail stays in the outbox again.")
        var withdraw = false

        func run() async throws {
            let (configuration, logger) = try await options.loadWithLogger()
            guard
                try await Operations.approveOwner(
                    configuration: configuration, email: email, approved: !withdraw, logger: logger)
            else { throw ValidationError("no owner has email '\(email)'") }
            Terminal.write(withdraw ? "approval withdrawn for \(email)" : "approved \(email)")
        }
    }

    struct SetPassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-password",
            abstract: "Set an owner's password; every browser signed in as them is signed out.")
        @OptionGroup var options: DataOptions
        @Option(help: "The owner's email.") var email: String
        @OptionGroup var password: PasswordOptions

        func run() async throws {
            let password = try password.read()
            let (configuration, logger) = try await options.loadWithLogger()
            let found: Bool
            do {
                found = try await Operations.setOwnerPassword(
                    configuration: configuration, email: email, password: password, logger: logger)
            } catch let error as OwnerError {
                throw ownerValidationError(error, email: email)
            }
            guard found else { throw CommandFailure("no owner has email '\(email)'") }
            Terminal.write("password set for \(email); their sessions ended")
            let ways = try await Operations.otherWaysIn(
                configuration: configuration, email: email, owner: true, logger: logger) ?? []
            writeOtherWays(ways, remove: "postern owner passkeys remove --email \(email) --id ID")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List owners, oldest first.")
        @OptionGroup var options: DataOptions

        func run() async throws {
            try await options.printLines { try await Operations.listOwners(configuration: $0, logger: $1) }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show an owner: whether they have a password and a proven email, their passkeys (id, name, "
                + "algorithm, created, last used, synced or not) and their linked sign-in providers.")
        @OptionGroup var show: ShowOptions

        func run() async throws {
            try await show.run(holder: "owner") {
                try await Operations.showOwner(configuration: $0, email: $1, logger: $2)
            }
        }
    }

    struct Passkeys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Manage an owner's passkeys.", subcommands: [RemovePasskey.self])
    }

    struct RemovePasskey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove an owner's passkey (a lost device): it signs nobody in from now on.",
            discussion: "The id is the one `owner show` lists. The owner's password and other ways in are untouched; `owner set-password` gives one back.")
        @OptionGroup var removal: PasskeyRemovalOptions

        func run() async throws {
            try await removal.run(holder: "owner") {
                try await Operations.removeOwnerPasskey(configuration: $0, email: $1, id: $2, logger: $3)
            }
        }
    }

    struct MFA: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mfa", abstract: "Manage an owner's second factor (TOTP).", subcommands: [ResetMFA.self])
    }

    struct ResetMFA: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset",
            abstract: "Remove an owner's second factor (a lost authenticator app and recovery codes).",
            discussion: """
                Their TOTP secret and recovery codes are deleted; their password, passkeys and sessions are \
                untouched. They sign in with their password alone (or, when POSTERN_OWNER_SECOND_FACTOR requires \
                one, set up a new app at their next sign-in). Recorded on the audit trail as owner.mfa_reset.
                """)
        @OptionGroup var reset: SecondFactorResetOptions

        func run() async throws {
            try await reset.run(holder: "owner") {
                try await Operations.resetOwnerSecondFactor(configuration: $0, email: $1, logger: $2)
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an owner: their sign-ins, inbox links and app grants end; the inboxes stay.")
        @OptionGroup var options: DataOptions
        @Option(help: "The owner's email.") var email: String

        func run() async throws {
            let (configuration, logger) = try await options.loadWithLogger()
            guard try await Operations.removeOwner(configuration: configuration, email: email, logger: logger) else {
                throw CommandFailure("no owner has email '\(email)'")
            }
            Terminal.write("removed \(email)")
        }
    }
}

/// The command line's words for an owner refusal: a bad `--email` or password is a usage error, a taken email a
/// failure of the command.
private func ownerValidationError(_ error: OwnerError, email: String) -> any Error {
    switch error {
    case .invalidEmail: ValidationError("'\(email)' is not an email address (--email)")
    case .weakPassword:
        ValidationError("the password must have \(OwnerCredentials.minimumPasswordLength) to 1024 characters")
    case .emailTaken: CommandFailure("an owner with email '\(email)' exists already")
    }
}
