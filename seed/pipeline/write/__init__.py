"""Write: the rows of an import or an update in one transaction under the import lock."""
