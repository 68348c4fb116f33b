#ifndef PERMIT_CLIBYAML_SHIM_H
#define PERMIT_CLIBYAML_SHIM_H
/* libyaml's parser API (Debian libyaml-dev, Homebrew libyaml): PermitInput reads a document's
   parser events with it to check keys before Yams composes the document. */
#include <yaml.h>
#endif
