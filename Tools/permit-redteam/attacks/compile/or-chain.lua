return {{ORS}}''
