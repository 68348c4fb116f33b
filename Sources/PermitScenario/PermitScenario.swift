import PermitCore
