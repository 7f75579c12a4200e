import ArgumentParser
import PosternApp

/// `postern pro create|list`: Pro users are created by the operator, as the hosted service does in its dashboard.
struct Pro: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create and list Pro users of the mailbox API.", subcommands: [Create.self, List.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a Pro user.")
        @OptionGroup var options: ConfigurationOptions
        @Option(help: "The Pro user's email (their login).") var email: String
        @Option(help: "The Pro user's password (at least 6 characters).") var password: String
        @Option(name: .customLong("max-accounts"), help: "Most mailbox accounts the user may own (default 100).")
        var maxAccounts: Int?
        @Option(name: .customLong("max-domains"), help: "Most custom domains the user may add (default 5).")
        var maxDomains: Int?

        func run() async throws {
            let configuration = try await options.load()
            let logger = bootstrapLogging(level: configuration.logLevel)
            print(try await Operations.createProUser(
                configuration: configuration, email: email, password: password, maxAccounts: maxAccounts,
                maxDomains: maxDomains, logger: logger))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List Pro users and their account counts.")
        @OptionGroup var options: ConfigurationOptions

        func run() async throws {
            let configuration = try await options.load()
            let logger = bootstrapLogging(level: configuration.logLevel)
            for line in try await Operations.listProUsers(configuration: configuration, logger: logger) { print(line) }
        }
    }
}
