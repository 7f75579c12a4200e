/// The SMTP sandbox's side of the web inbox, a port the composition root fills with the sandbox: what it recorded
/// beside a Pro user's capture. Its tables stay behind it.
public protocol WebInboxCaptures: Sendable {
    /// The SPF, DKIM and DMARC verdicts Pro user `proUserID`'s sandbox recorded for its capture `messageID`; nil when
    /// that is no capture of theirs (any other message) or none were recorded.
    func authResults(proUserID: String, messageID: String) async throws -> WebInboxAuthResults?
}

/// A sandbox capture's SPF, DKIM and DMARC verdicts as recorded: RFC 8601 result tokens (`pass`, `fail`, `none`, ...)
/// and what each was about.
public struct WebInboxAuthResults: Sendable, Equatable {
    public var spf: String
    public var dkim: String
    public var dmarc: String
    /// The domain SPF was checked for (the MAIL FROM's, else the HELO name); empty when SPF was not checked.
    public var spfDomain: String
    /// The domains of the DKIM signatures checked, top to bottom.
    public var dkimDomains: [String]
    /// The From domain DMARC was checked for; empty when DMARC was not checked.
    public var fromDomain: String

    public init(
        spf: String, dkim: String, dmarc: String, spfDomain: String = "", dkimDomains: [String] = [],
        fromDomain: String = ""
    ) {
        self.spf = spf
        self.dkim = dkim
        self.dmarc = dmarc
        self.spfDomain = spfDomain
        self.dkimDomains = dkimDomains
        self.fromDomain = fromDomain
    }

    /// Whether anything was checked: the sandbox records `none` throughout, about nothing, when its checks are off
    /// (`POSTERN_SANDBOX_MAIL_AUTH=off`).
    public var checked: Bool {
        !spfDomain.isEmpty || !fromDomain.isEmpty || !dkimDomains.isEmpty
    }
}
