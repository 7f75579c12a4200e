import ArgumentParser
import OutboundQueue
import PosternApp
import PosternOperations

/// `postern mail deliver|list|show|code|extract|outbox|queue|tls-reset`: the mail store and the outbound queue from the
/// command line.
struct Mail: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Deliver a file as a message, list or show stored mail, print a one-time code, fill in codes and "
            + "links, list the outbox, or manage the outbound queue.",
        subcommands: [
            Deliver.self, List.self, Show.self, Code.self, Extract.self, Outbox.self, Queue.self, TLSReset.self,
        ])

    struct Code: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the one-time code of the newest message at an address that has one.",
            discussion: "The code Postern found when the message was delivered (best first; the one printed is the "
                + "best). With --wait, waits up to that long for such a message to arrive (30s, 2m, or seconds); "
                + "without one, or when none arrives, says why and exits 1.")
        @OptionGroup var options: DataOptions
        @Option(name: .customLong("address"), help: "The address the message is stored under.") var address: String
        @Option(name: .customLong("wait"), help: "How long to wait for one: 30s, 2m, or seconds (default 0).")
        var wait: String?

        /// `--wait` as a duration: a whole number of seconds, with `s` or `m` or nothing after it.
        var waitDuration: Duration? {
            guard let wait else { return .zero }
            let unit: Int64 = wait.hasSuffix("m") ? 60 : 1
            let digits = wait.hasSuffix("m") || wait.hasSuffix("s") ? wait.dropLast() : wait[...]
            guard let count = Int64(digits), count >= 0 else { return nil }
            let duration = Duration.seconds(count * unit)
            return duration <= Operations.mailCodeWaitMaximum ? duration : nil
        }

        func validate() throws {
            guard waitDuration != nil else { throw ValidationError("--wait must be like 30s or 2m, at most 60m") }
        }

        func run() async throws {
            let configuration = try await options.load()
            let logger = bootstrapLogging(level: configuration.observability.logLevel)
            switch try await Operations.mailCode(
                configuration: configuration, address: address, wait: waitDuration ?? .zero, logger: logger)
            {
            case .code(let code, _): Terminal.write(code)
            case .none(let reason): throw CommandFailure(reason)
            }
        }
    }

    struct Extract: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Find the one-time codes and links of messages stored before Postern found them at delivery.",
            discussion: "--backfill reads each stored message that has none yet (stored before migration 0068, or by "
                + "an instance of the release before during a rolling upgrade), in batches, printing a count after "
                + "each. A stopped run loses nothing: run it again to go on.")
        @OptionGroup var options: DataOptions
        @Flag(name: .customLong("backfill"), help: "Fill every stored message that has no codes and links yet.")
        var backfill = false
        @Option(name: .customLong("batch"), help: "Messages read per batch (default 100).") var batch = 100

        func validate() throws {
            guard backfill else { throw ValidationError("give --backfill") }
            if batch < 1 { throw ValidationError("--batch must be 1 or more") }
        }

        func run() async throws {
            let configuration = try await options.load()
            let logger = bootstrapLogging(level: configuration.observability.logLevel)
            Terminal.write(
                try await Operations.mailExtractBackfill(
                    configuration: configuration, batch: batch, logger: logger, progress: { Terminal.write($0) }))
        }
    }

    struct Deliver: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Store an RFC 5322 message file in local mailboxes, as SMTP would; prints the message id.")
        @OptionGroup var options: DataOptions
        @Option(name: .customLong("to"), help: "A local address: a mailbox account or an agent inbox (repeatable).")
        var recipients: [String]
        @Argument(help: "The message file (headers, a blank line, the body).") var file: String

        func run() async throws {
            let configuration = try await options.load()
            let logger = bootstrapLogging(level: configuration.observability.logLevel)
            Terminal.write(try await Operations.deliverMail(
                configuration: configuration, recipients: recipients, file: file, logger: logger))
        }
    }

    struct Outbox: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List mail held in this server's outbox (submitted for other domains, not sent) and why, or "
                + "release it (--release ID, --all).",
            discussion: "A release goes through the checks of a new submission (outbound delivery on, a sender that "
                + "may write outside, the limits, the size and the sender's quota): released mail is queued to leave; "
                + "mail that still fails a check stays held, and the line says why.")
        @OptionGroup var options: DataOptions
        @Option(name: .customLong("release"), help: "Release this held message.") var release: String?
        @Flag(name: .customLong("all"), help: "Release every held message.") var all = false

        func validate() throws {
            if release != nil && all { throw ValidationError("give --release ID or --all, not both") }
        }

        func run() async throws {
            let configuration = try await options.load()
            let logger = bootstrapLogging(level: configuration.observability.logLevel)
            guard release != nil || all else {
                Terminal.write(lines: try await Operations.outbox(configuration: configuration, logger: logger))
                return
            }
            do {
                let lines = try await Operations.releaseOutbox(
                    configuration: configuration, id: release, logger: logger)
                Terminal.write(lines: lines)
            } catch let error as OutboxReleaseError {
                throw CommandFailure(error.description)
            }
        }
    }

    struct Queue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the outbound queue, make messages due now (--retry ID, --all) or delete (--delete).",
            discussion: "As Postfix's postqueue -p, postqueue -f and postsuper -d. --delete takes one message (ID) or "
                + "a selection: --sender ADDRESS, --holder OWNER_ID (as owner list prints it), --domain DOMAIN (the "
                + "recipients there) or --all, and says how many recipients it removed. Deleted recipients end failed "
                + "(no bounce is sent); their submissions stay readable over JMAP.")
        @OptionGroup var options: DataOptions
        @Option(name: .customLong("retry"), help: "Make this message's waiting recipients due now.") var retry: String?
        @Flag(
            name: .customLong("all"),
            help: "Without --delete: make every waiting recipient due now; with it: delete every waiting recipient.")
        var all = false
        @Flag(name: .customLong("delete"), help: "Delete from the queue the message ID, or what a selection names.")
        var delete = false
        @Argument(help: "With --delete: the message to delete.") var id: String?
        @Option(name: .customLong("sender"), help: "With --delete: every message from this address.")
        var sender: String?
        @Option(name: .customLong("holder"), help: "With --delete: every message this owner (its id) answers for.")
        var holder: String?
        @Option(name: .customLong("domain"), help: "With --delete: every recipient at this destination domain.")
        var domain: String?

        /// What --delete deletes, when exactly one selection is given.
        var selection: QueueSelection? {
            let given: [QueueSelection?] = [
                id.map(QueueSelection.message), sender.map(QueueSelection.sender), holder.map { QueueSelection.holder(.owner($0)) },
                domain.map(QueueSelection.domain), all ? .all : nil,
            ]
            let chosen = given.compactMap { $0 }
            return chosen.count == 1 ? chosen.first : nil
        }

        func validate() throws {
            if delete {
                guard retry == nil, selection != nil else {
                    throw ValidationError("--delete takes one of ID, --sender, --holder, --domain and --all")
                }
            } else {
                if id != nil || sender != nil || holder != nil || domain != nil {
                    throw ValidationError("ID, --sender, --holder and --domain select what --delete deletes")
                }
                if retry != nil && all { throw ValidationError("give one of --retry ID and --all") }
            }
        }

        func run() async throws {
            let configuration = try await options.load()
            let logger = bootstrapLogging(level: configuration.observability.logLevel)
            let action: Operations.QueueAction =
                if delete, let selection { .delete(selection) } else if let retry { .retry(retry) } else if all {
                    .retryAll
                } else { .list }
            for line in try await Operations.queue(configuration: configuration, action, logger: logger) {
                Terminal.write(line)
            }
        }
    }

    struct TLSReset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tls-reset",
            abstract: "Forget that a domain took mail over TLS, so that a failed STARTTLS may be retried in the clear.",
            discussion: "Direct delivery never falls back to plain text for a domain it once delivered to over TLS "
                + "(chasquid's domaininfo). Use this when such a domain has really lost its TLS.")
        @OptionGroup var options: DataOptions
        @Argument(help: "The destination domain.") var domain: String

        func run() async throws {
            let configuration = try await options.load()
            let logger = bootstrapLogging(level: configuration.observability.logLevel)
            Terminal.write(try await Operations.tlsReset(configuration: configuration, domain: domain, logger: logger))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List stored messages, newest first: every address's, one address's, or the catch-all's.")
        @OptionGroup var options: DataOptions
        @Option(name: .customLong("address"), help: "Only the messages stored under this address.")
        var address: String?
        @Flag(name: .customLong("catch-all"), help: "Only the catch-all's (POSTERN_SMTP_ACCEPT=any).")
        var catchAll = false
        @Option(name: .customLong("limit"), help: "At most this many (default 50).") var limit = 50

        func validate() throws {
            if catchAll && address != nil { throw ValidationError("--address and --catch-all exclude each other") }
            if limit < 1 { throw ValidationError("--limit must be 1 or more") }
        }

        func run() async throws {
            let configuration = try await options.load()
            let logger = bootstrapLogging(level: configuration.observability.logLevel)
            let lines = try await Operations.mailList(
                configuration: configuration, address: catchAll ? Operations.catchAllAddress : address, limit: limit,
                logger: logger)
            Terminal.write(lines: lines)
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show one stored message: its headers and text, or its raw bytes.")
        @OptionGroup var options: DataOptions
        @Flag(name: .customLong("raw"), help: "Print the message as received (RFC 5322).") var raw = false
        @Argument(help: "The message id, as `postern mail list` prints it.") var id: String

        func run() async throws {
            let configuration = try await options.load()
            let logger = bootstrapLogging(level: configuration.observability.logLevel)
            if raw {
                // The exact bytes into a file or a pipe; on a terminal, escaped as everything else is.
                Terminal.writeExact(try await Operations.mailRaw(configuration: configuration, id: id, logger: logger))
            } else {
                Terminal.write(lines: try await Operations.mailShow(configuration: configuration, id: id, logger: logger))
            }
        }
    }
}
