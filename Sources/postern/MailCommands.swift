import ArgumentParser
import PosternApp

/// `postern mail deliver|outbox`: the mail store from the command line.
struct Mail: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Deliver a file as a message, or list the outbox.", subcommands: [Deliver.self, Outbox.self])

    struct Deliver: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Store an RFC 5322 message file in local mailboxes, as SMTP would; prints the message id.")
        @OptionGroup var options: ConfigurationOptions
        @Option(name: .customLong("to"), help: "A local address: a mailbox account or an agent inbox (repeatable).")
        var recipients: [String]
        @Argument(help: "The message file (headers, a blank line, the body).") var file: String

        func run() async throws {
            let configuration = try await options.load()
            let logger = bootstrapLogging(level: configuration.logLevel)
            print(try await Operations.deliverMail(
                configuration: configuration, recipients: recipients, file: file, logger: logger))
        }
    }

    struct Outbox: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List mail submitted over JMAP for other domains: kept here, never sent to the internet.")
        @OptionGroup var options: ConfigurationOptions

        func run() async throws {
            let configuration = try await options.load()
            let logger = bootstrapLogging(level: configuration.logLevel)
            for line in try await Operations.outbox(configuration: configuration, logger: logger) { print(line) }
        }
    }
}
