"""One module per operator (``suites/faults/<op>.py``): ``FAULTS`` maps each check rule's id to a
``spec.faults.Fault``, how to break that rule alone from a valid call of the operator's call
builders. ``spec.faults`` turns them into one-fault and fault-pair cases."""
