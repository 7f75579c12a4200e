import ArgumentParser
import Foundation
import PosternApp
import PosternOperations

/// `postern web link`: the web inbox's operator side.
struct Web: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The web inbox (/inbox): one-time links that open a mailbox without a password.",
        subcommands: [Link.self])

    struct Link: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a link (ten minutes, single use) that opens a mailbox, or all mail, in the web inbox.",
            discussion: """
                The link names the running server: its ports file (--ports-file, which also names its data \
                directory), else the record `serve` keeps in the data directory while it runs, else the \
                configuration. An address is resolved as delivery routes it: a +tag address to its mailbox, \
                `catch-all` or an address the catch-all took to the catch-all's mailbox.
                """)
        @OptionGroup var options: DataOptions
        @Option(help: "The address whose mail to open (an agent inbox, a Mail.td account, a +tag address, catch-all).")
        var address: String?
        @Flag(help: "Open every stored message of every mailbox, read-only (no send, no delete).") var all = false

        func validate() throws {
            guard (address != nil) != all else {
                throw ValidationError("give exactly one of --address A or --all")
            }
        }

        func run() async throws {
            let baseURL = try options.runningServer()?.baseURL
            let (configuration, logger) = try await options.loadWithLogger()
            if all {
                Terminal.write(
                    try await Operations.webInboxAllMailLink(
                        configuration: configuration, baseURL: baseURL, logger: logger))
                return
            }
            let address = address ?? ""
            do {
                Terminal.write(
                    try await Operations.webInboxLink(
                        configuration: configuration, address: address, baseURL: baseURL, logger: logger))
            } catch WebInboxLinkError.notLocal {
                throw CommandFailure("no local mailbox holds mail for '\(address)'")
            }
        }
    }
}
