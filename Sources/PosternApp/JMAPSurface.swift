import Audit
import Directory
import JMAP
import MailboxAccounts
import OAuthResource
import ServerKit

/// JMAP (RFC 8620/8621, `/jmap`): agents with their capabilities, owners with their OAuth access tokens, and Mail.td
/// accounts (mail.tm's too) with their mailbox tokens, read-only.
enum JMAPSurface {
    /// Adds JMAP's routes; returns the service, which the web inbox sends through and MCP calls.
    /// - Parameter accounts: Mail.td's accounts, whose mailbox tokens open them here.
    static func register(
        into router: inout ContextRouter, _ context: SurfaceContext, _ shared: SharedSurfaceParts,
        accounts: MailboxAccountService
    ) -> JMAPService {
        let (configuration, identity, mail, metrics) = (
            context.configuration, context.identity, context.mail, context.metrics
        )
        var settings = configuration.jmap
        settings.baseURL = JMAPConfiguration(baseURL: identity.baseURL).baseURL
        settings = configuration.rateLimits.applied(to: settings)
        let agentSettings = Surfaces.agentConfiguration(configuration, identity: identity)
        let capability = CapabilityAuthenticator(
            keys: context.keys, issuer: identity.issuer, audience: agentSettings.audience,
            lifetime: agentSettings.capabilityTTL, directory: shared.agentInboxes, clock: context.clock)
        let jmap = JMAPService(
            configuration: settings,
            authenticator: OAuthJMAPAuthenticator(
                verifier: shared.auditingReads(at: "jmap"), principals: shared.ownerPrincipals,
                fallback: PrincipalAuthenticatorChain([
                    capability, MailboxTokenAuthenticator(accounts: accounts, directory: mail.directory),
                ])),
            store: mail.store, directory: mail.directory, delivery: mail.delivery, clock: context.clock,
            onSubmission: { metrics.jmapSubmission($0); await Self.recordActing($0, audit: shared.audit) },
            onUnexpectedError: Surfaces.reporter("jmap", context.logger),
            onEventStream: metrics.jmapEventStream,
            outbound: Surfaces.outboundAdmission(configuration, mail: mail, database: context.database))
        jmap.register(into: &router)
        return jmap
    }

    /// A submission an agent made acting for its owner (a delegated token at JMAP or MCP), on the owner's trail as the
    /// agent's; nothing for any other.
    static func recordActing(_ outcome: JMAPService.SubmissionOutcome, audit: AuditTrail) async {
        guard let delegation = outcome.delegation else { return }
        await audit.record {
            .acting(
                for: delegation.ownerID, actorIDs: delegation.actorIDs, .agentSentMail, target: outcome.sender,
                client: outcome.client, details: [("submission", outcome.submissionID)], time: $0)
        }
    }
}
