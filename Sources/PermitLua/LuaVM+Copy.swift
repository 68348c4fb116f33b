import CLuaShim
import PermitCore

extension LuaVM {
    /// Gives `permit.copy` the pack's copy: a table of keys to translations, kept in the registry
    /// where no script reaches it (each `permit.copy` call hands out a fresh table). Charged to
    /// the VM's memory like everything else it holds; the copy's own bounds keep it small.
    func setCopy(_ copy: PolicyCopy) throws(LuaError) {
        var entries: [String: LuaValue] = [:]
        for key in copy.keys {
            entries[key] = .table(LuaTable(copy.translations(of: key).mapValues(LuaValue.string)))
        }
        let ref = try store(.table(LuaTable(entries)), readOnly: false)
        permit_set_copy(L, try slot(of: ref))
    }
}
