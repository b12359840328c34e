# Sourced by docs/demo.sh: the review screen, named rather than run (it needs a person).
say "All of this in one terminal screen"
cat <<TXT
A person does the same from one screen: the requests waiting on them, each
stranger's words (escapes made visible), each draft whole; a approves, r rejects,
c closes, e edits, ? lists the keys. Try it on this sandbox:
  MECHA_HOME=$MECHA_HOME $MECHA review
TXT
