import JSON
import WebInbox

/// The web inbox's sandbox port over the SMTP sandbox: the verdicts it recorded beside a capture, as the Pro API's
/// capture detail gives them (`auth_results`).
extension MailboxWebInboxSignIn {
    public func authResults(proUserID: String, messageID: String) async throws -> WebInboxAuthResults? {
        try await sandbox.authResults(proUserID: proUserID, messageID: messageID).map(Self.verdicts)
    }

    /// `{"spf","dkim","dmarc","spf_domain","dkim_signatures","from_domain"}` as recorded; a missing verdict is `none`.
    static func verdicts(_ json: JSONValue) -> WebInboxAuthResults {
        WebInboxAuthResults(
            spf: json["spf"]?.stringValue ?? "none", dkim: json["dkim"]?.stringValue ?? "none",
            dmarc: json["dmarc"]?.stringValue ?? "none", spfDomain: json["spf_domain"]?.stringValue ?? "",
            dkimDomains: json["dkim_signatures"]?.arrayValue?.compactMap { $0["domain"]?.stringValue } ?? [],
            fromDomain: json["from_domain"]?.stringValue ?? "")
    }
}
