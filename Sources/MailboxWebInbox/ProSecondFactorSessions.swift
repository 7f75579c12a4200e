import MailboxAccounts
import SecondFactors
import Storage
import WebInbox

/// What turning a Pro user's second factor on ends (``SecondFactorSessions``), written once for the store the Mail.td
/// API and the web inbox share: their token epoch moves on, which ends every Pro JWT (`POST /api/user/login` gave it
/// for a password alone) and every web-inbox session resting on the epoch (a password's, a passkey's, a provider's);
/// their other web-inbox sessions go too (those a pasted `tm_pro_` token opened among them), and the session that
/// turned the factor on stays, resting on the new epoch.
///
/// Their `tm_pro_` API tokens stay: a hosted service's user makes each on purpose for a script or an integration, names
/// it, sees it listed and revokes it on the dashboard one by one; ending them all would break every integration at
/// once for turning on a sign-in factor they do not guard (an API token was never asked for a second factor).
public struct ProSecondFactorSessions: SecondFactorSessions {
    public init() {}

    public func endOthers(holder: String, keeping: String?, _ connection: any SQLConnection) throws {
        guard let epoch = try MailboxStore.moveProTokenEpochOn(id: holder, connection) else { return }
        try WebInboxSessions.endOthers(
            of: .proUser(id: holder), keeping: keeping, restingOn: .tokenEpoch(epoch), connection)
    }
}
