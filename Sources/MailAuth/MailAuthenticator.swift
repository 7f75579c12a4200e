import Foundation
import MIME

/// SPF, DKIM and DMARC of one received message, as the SMTP sandbox shows them.
public struct MailAuthenticator: Sendable {
    /// The three verdicts and what they are about.
    public struct Verdict: Sendable, Equatable {
        public var spf: SPFEvaluator.Outcome
        /// Every signature's outcome, top to bottom.
        public var dkimSignatures: [DKIMVerifier.Outcome]
        public var dmarc: DMARCEvaluator.Outcome

        /// `pass` when a signature passed; else the first signature's result; `none` without signatures.
        public var dkim: AuthResult {
            if dkimSignatures.contains(where: { $0.result == .pass }) { return .pass }
            return dkimSignatures.first?.result ?? .none
        }

        /// The verdict of a message nothing was checked for: `none` throughout.
        public static let unchecked = Verdict(
            spf: .init(result: .none, domain: ""), dkimSignatures: [],
            dmarc: .init(result: .none, policy: nil, fromDomain: ""))
    }

    let dns: any MailAuthDNS
    let budget: Duration
    let instant: @Sendable () -> ContinuousClock.Instant
    let now: @Sendable () -> Int64

    /// Checks through `dns`; `now` in Unix seconds for DKIM's `x=`. All of one message's lookups share `budget`
    /// (default 10 s, with each lookup's own timeout on top for the last): past it every lookup is a temporary
    /// error, so a slow or silent DNS makes `temperror` verdicts, not a session that waits a lookup timeout for each of
    /// SPF's up to 10 mechanisms. `instant` reads the monotonic clock (injected in tests).
    public init(
        dns: any MailAuthDNS, budget: Duration = .seconds(10),
        instant: @escaping @Sendable () -> ContinuousClock.Instant = { .now }, now: @escaping @Sendable () -> Int64
    ) {
        self.dns = dns
        self.budget = budget
        self.instant = instant
        self.now = now
    }

    /// Evaluates `message` as received from `clientIP` with envelope sender `mailFrom` after `HELO helo`.
    public func evaluate(_ message: [UInt8], clientIP: String, mailFrom: String, helo: String) async -> Verdict {
        let dns = BudgetedMailAuthDNS(dns: dns, deadline: instant() + budget, instant: instant)
        let spfOutcome = await SPFEvaluator(dns: dns).check(clientIP: clientIP, mailFrom: mailFrom, helo: helo)
        let headers = MessageHeaders(message)
        let signatures = await DKIMVerifier(dns: dns, now: now).verify(headers)
        let from = Self.fromDomain(headers)
        let dmarcOutcome = await DMARCEvaluator(dns: dns).check(
            fromDomain: from, spf: spfOutcome, dkimPassedDomains: signatures.filter { $0.result == .pass }.map(\.domain)
        )
        return Verdict(spf: spfOutcome, dkimSignatures: signatures, dmarc: dmarcOutcome)
    }

    /// The domain of the single `From` address (RFC 7489 section 6.6.1), read by MIME's strict RFC 5322 reader; nil
    /// for none, several, or a field readers could take two ways (`<a@x> <b@y>`), which has no domain to align with.
    static func fromDomain(_ headers: MessageHeaders) -> String? {
        let fields = headers.fields(named: "From")
        guard fields.count == 1,
            let mailboxes = try? AddressListParser.mailboxList(MessageHeaders.value(of: fields[0])),
            mailboxes.count == 1
        else { return nil }
        return SPFEvaluator.domain(of: mailboxes[0].email)
    }
}
