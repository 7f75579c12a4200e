import MailSubmission

/// What JMAP's submissions are admitted and recorded through, and held mail released through: the outbound side's
/// admission (the ledger, the outbound mode, the sender rule, the send and size limits of the queue's configuration),
/// which ``JMAPService`` hands to the one ``Submitter``.
public typealias JMAPOutbound = OutboundAdmission
