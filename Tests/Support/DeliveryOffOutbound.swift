import JMAP
import MailStore
import OutboundQueue
import Storage

extension JMAPOutbound {
    /// What a test's JMAP service records its submissions through when the test sends nothing outside: the outbound
    /// queue over `database` as the ledger, with outbound delivery off, as a server run with
    /// `POSTERN_OUTBOUND_DELIVERY=off` (outside recipients recorded held, `outbound_off`, and kept in the outbox). The
    /// ledger tells `changes` of each submission's move, as the composition root's does.
    public static func deliveryOff(_ database: any SQLDatabase, changes: MailChanges? = nil) -> JMAPOutbound {
        JMAPOutbound(
            ledger: OutboundQueue(database: database, onSubmissionChange: { changes?.announce([$0]) }),
            sendsOutside: false, limits: [], sender: { _ in .allowed(holder: nil) })
    }
}
