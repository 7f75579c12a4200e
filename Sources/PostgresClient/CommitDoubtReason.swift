/// Why a commit is in doubt (the caller answers 503 for a write that may be lost at the next failover or found done
/// later): the `reason` of `postern_storage_commits_in_doubt_total`.
enum CommitDoubtReason: String, Sendable {
    /// The wait for the synchronous standby was canceled (``PostgresNotice``).
    case replicationCanceled = "replication_canceled"
    /// The call was not confirmed within the timeout (``PostgresPool``).
    case timeout
    /// The commit did not wait for a synchronous standby, which the configuration requires
    /// (`POSTERN_DATABASE_REQUIRE_SYNCHRONOUS_STANDBY`, ``PostgresConnection``).
    case noSynchronousStandby = "no_synchronous_standby"
}
