import SecondFactors
import Storage

extension OwnerStore {
    /// The owner with id `id` and the stamp of their ways in as they stand (``OwnerCredentialStamp``: their password
    /// hash and their confirmed second factor, as `factors` has it), in one read: what a half-done sign-in is sealed
    /// with when its first factor passes and is checked against at each request of its second step. Nil when there is
    /// no such owner.
    /// - Throws: storage errors.
    func secondStepStanding(ownerID id: String, factors: SecondFactorStore) async throws
        -> (owner: Owner, stamp: OwnerCredentialStamp)?
    {
        try await database.read { connection in
            guard let row = try connection.query(
                """
                SELECT id, email, created_at, approved_at, password_hash, password_removed_at FROM owners WHERE id = ?
                """, [.text(id)]
            ).first, let owner = Self.owner(row)
            else { return nil }
            return (owner, OwnerCredentialStamp(row, factor: try factors.confirmedFactorStamp(holder: id, connection)))
        }
    }
}
