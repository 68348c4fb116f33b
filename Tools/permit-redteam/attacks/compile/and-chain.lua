local a = ... return {{TERMS}}a
