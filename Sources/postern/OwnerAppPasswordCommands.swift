import AppPasswords
import ArgumentParser
import PosternOperations

/// `postern owner app-password create|list|revoke` (issue 87 item 2): an owner's app passwords, for a mail client at
/// IMAP, POP3 or submission, as `/owner/app-passwords` makes them.
struct OwnerAppPasswordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app-password",
        abstract: "Make, list and revoke an owner's app passwords (a mail client's password for one inbox).",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make an app password for one inbox the owner holds; its secret is printed this once.",
            discussion: """
                The mail client signs in with the inbox's address and this password, at the doors given (imap, pop3, \
                submission) and nowhere else: never at /owner, /inbox, the OAuth endpoints or JMAP.
                """)
        @OptionGroup var options: DataOptions
        @Option(help: "The owner's email.") var email: String
        @Option(help: "The inbox it opens: its address or id.") var inbox: String
        @Option(name: .customLong("door"), help: "A door it opens: imap, pop3 or submission (repeat for several).")
        var doors: [String] = ["imap", "submission"]
        @Option(help: "Its name, as the owner's page lists it.") var name: String

        func run() async throws {
            guard let doors = AppPasswordDoors(names: doors) else {
                throw ValidationError("--door is imap, pop3 or submission")
            }
            let (configuration, logger) = try await options.loadWithLogger(.creates)
            do {
                let (line, secret) = try await Operations.createAppPassword(
                    configuration: configuration, email: email, inbox: inbox, doors: doors, name: name, logger: logger)
                Terminal.write(line)
                Terminal.write("password: \(secret)")
            } catch let error as Operations.AppPasswordCommandError {
                throw appPasswordFailure(error, email: email, inbox: inbox)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List an owner's app passwords, newest first.")
        @OptionGroup var options: DataOptions
        @Option(help: "The owner's email.") var email: String

        func run() async throws {
            let (configuration, logger) = try await options.loadWithLogger()
            do {
                Terminal.write(
                    lines: try await Operations.listAppPasswords(configuration: configuration, email: email, logger: logger))
            } catch let error as Operations.AppPasswordCommandError {
                throw appPasswordFailure(error, email: email, inbox: "")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke an owner's app password: it opens nothing from now on, and its sessions end.")
        @OptionGroup var options: DataOptions
        @Option(help: "The owner's email.") var email: String
        @Option(help: "The app password's id, as `owner app-password list` shows it.") var id: String

        func run() async throws {
            let (configuration, logger) = try await options.loadWithLogger()
            let revoked: Bool
            do {
                revoked = try await Operations.revokeAppPassword(
                    configuration: configuration, email: email, id: id, logger: logger)
            } catch let error as Operations.AppPasswordCommandError {
                throw appPasswordFailure(error, email: email, inbox: "")
            }
            guard revoked else { throw CommandFailure("\(email) has no app password \(id)") }
            Terminal.write("revoked \(id)")
        }
    }
}

/// The command line's words for an app password not made.
private func appPasswordFailure(_ error: Operations.AppPasswordCommandError, email: String, inbox: String)
    -> any Error
{
    switch error {
    case .unknownOwner: CommandFailure("no owner has email '\(email)'")
    case .unknownInbox: CommandFailure("\(email) holds no inbox '\(inbox)'")
    case .refused(.invalidName): ValidationError("--name must be one line of 1 to 100 characters")
    case .refused(.noDoor): ValidationError("--door is imap, pop3 or submission")
    case .refused(.tooMany): CommandFailure("\(email) has the most app passwords one may have: revoke one first")
    }
}
