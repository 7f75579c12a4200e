import Foundation

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
    }

    let spf: SPFEvaluator
    let dkim: DKIMVerifier
    let dmarc: DMARCEvaluator

    /// Checks through `dns`; `now` in Unix seconds for DKIM's `x=`.
    public init(dns: any MailAuthDNS, now: @escaping @Sendable () -> Int64) {
        spf = SPFEvaluator(dns: dns)
        dkim = DKIMVerifier(dns: dns, now: now)
        dmarc = DMARCEvaluator(dns: dns)
    }

    /// Evaluates `message` as received from `clientIP` with envelope sender `mailFrom` after `HELO helo`.
    public func evaluate(_ message: [UInt8], clientIP: String, mailFrom: String, helo: String) async -> Verdict {
        let spfOutcome = await spf.check(clientIP: clientIP, mailFrom: mailFrom, helo: helo)
        let signatures = await dkim.verify(message)
        let from = Self.fromDomain(MessageHeaders(message))
        let dmarcOutcome = await dmarc.check(
            fromDomain: from, spf: spfOutcome, dkimPassedDomains: signatures.filter { $0.result == .pass }.map(\.domain)
        )
        return Verdict(spf: spfOutcome, dkimSignatures: signatures, dmarc: dmarcOutcome)
    }

    /// The domain of the single `From` address (RFC 7489 section 6.6.1); nil for none or several.
    static func fromDomain(_ headers: MessageHeaders) -> String? {
        let fields = headers.fields(named: "From")
        guard fields.count == 1 else { return nil }
        var value = MessageHeaders.value(of: fields[0])
        if let open = value.lastIndex(of: "<"), let close = value.lastIndex(of: ">"), open < close {
            value = String(value[value.index(after: open)..<close])
        }
        return SPFEvaluator.domain(of: value.trimmingCharacters(in: .whitespaces))
    }
}
