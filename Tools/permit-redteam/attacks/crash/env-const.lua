local _ENV <const> = { x = 1 }
return { name = "e", decide = function() return x end }
